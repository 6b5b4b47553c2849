/**
 * What every n8n the suites drive gets once it is ready, whatever its shape (one process, or a main
 * process with workers): an owner signed in, one credential of each type pointing at the simulator
 * (after checking that n8n loaded the package's credential types), and a way to import workflows
 * with those credentials bound. The simulator is seeded with the publisher the Host API credential names.
 */
import type { Simulator } from '../../../simulator/server';
import { DEMO_OWNER, N8nClient, type CredentialRef, type StoredWorkflow, type WorkflowJson } from './n8n-client';
import { prepareWorkflow } from './workflows';

/** Registry data the simulator is seeded with, so the Host API credential test has a publisher. */
export const DEMO_PUBLISHER_ID = 'demo-publisher';
export const DEMO_PUBLISHING_TOKEN = 'sim-publishing-token';
export const DEMO_REPOHOST_TOKEN = 'sim-repohost-token';

export const CREDENTIAL_NAMES = { hostCloudApi: 'Host Cloud API', hostApi: 'Host API' } as const;

export type CredentialType = keyof typeof CREDENTIAL_NAMES;
/** The credential type the instance does not create: each case binds it to its own v2 server's (support/v2-server.ts). */
export const V2_CREDENTIAL_TYPE = 'hostCloudV2Api';

export interface PreparedInstance {
	/** Signed in as the owner. */
	client: N8nClient;
	/** By credential type: hostCloudApi, hostApi. */
	credentials: Record<CredentialType, CredentialRef>;
	/** The data each credential was created with (the right secrets). */
	credentialData: Record<CredentialType, Record<string, string>>;
	/** Node types (full names) this n8n has loaded that declare webhooks. */
	nodeTypesWithWebhooks: Set<string>;
	/**
	 * Imports a workflow with its credentials bound to this instance's (or, by type, to those given in
	 * `credentials`) and returns it as stored. A credential of a type in `leaveUnbound` (one this
	 * instance does not create, such as the v2 one) is left as the file names it when none is given.
	 */
	importWorkflow(
		workflow: WorkflowJson,
		name?: string,
		credentials?: Record<string, CredentialRef>,
		leaveUnbound?: readonly string[],
	): Promise<StoredWorkflow>;
}

/** The n8n an instance is prepared on: where its API answers, its files folder, its log. */
export interface InstanceAddress {
	url: string;
	filesDir: string;
	logTail(lines?: number): string;
}

export async function prepareInstance(n8n: InstanceAddress, simulator: Simulator): Promise<PreparedInstance> {
	simulator.registry.seedPublisher({ id: DEMO_PUBLISHER_ID, name: 'Demo Publisher' });
	const client = new N8nClient(n8n.url);
	await client.setupOwner(DEMO_OWNER);

	const credentialData = {
		hostCloudApi: { apiKey: simulator.apiKey, baseUrl: simulator.baseUrl, wsBaseUrl: simulator.wsBaseUrl },
		hostApi: {
			accessToken: simulator.accessToken,
			registryUrl: simulator.registryUrl,
			publisherId: DEMO_PUBLISHER_ID,
			publishingToken: DEMO_PUBLISHING_TOKEN,
			repohostToken: DEMO_REPOHOST_TOKEN,
		},
	};
	const credentialTypes = await client.credentialTypeNames();
	for (const type of Object.keys(credentialData)) {
		if (!credentialTypes.has(type)) {
			throw new Error(`n8n did not load the credential type "${type}" from the package. Last lines of its log:\n${n8n.logTail()}`);
		}
	}
	const credentials = {
		hostCloudApi: await client.createCredential(CREDENTIAL_NAMES.hostCloudApi, 'hostCloudApi', credentialData.hostCloudApi),
		hostApi: await client.createCredential(CREDENTIAL_NAMES.hostApi, 'hostApi', credentialData.hostApi),
	};

	const nodeTypesWithWebhooks = new Set(
		(await client.nodeTypes()).filter((type) => (type.webhooks?.length ?? 0) > 0).map((type) => type.name),
	);
	const importWorkflow = async (
		workflow: WorkflowJson,
		name?: string,
		bound: Record<string, CredentialRef> = {},
		leaveUnbound: readonly string[] = [],
	) => await client.createWorkflow(prepareWorkflow(workflow, { ...credentials, ...bound }, { nodeTypesWithWebhooks, name, leaveUnbound }));
	return { client, credentials, credentialData, nodeTypesWithWebhooks, importWorkflow };
}

/** n8n's production URL of a trigger node's webhook on the server at `baseUrl` (activate the workflow first). */
export function productionWebhookUrl(baseUrl: string, workflow: WorkflowJson, nodeName: string, path: string): string {
	const node = workflow.nodes.find((candidate) => candidate.name === nodeName);
	if (!node?.webhookId) throw new Error(`Node "${nodeName}" has no webhook id (import the workflow through importWorkflow)`);
	return `${baseUrl}/webhook/${node.webhookId}/${path.replace(/^\/+/, '')}`;
}
