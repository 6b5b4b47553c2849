/**
 * The whole stack the demo (`npm start`) and the e2e suite run on: the simulator (in this
 * process, so tests can read its request log and inject faults), a real n8n with this package
 * installed as a community package, an owner account, one credential of each type pointing at the
 * simulator, and the example workflows imported. `stop()` undoes all of it; it also runs on Ctrl-C.
 */
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../simulator/server';
import { DEMO_OWNER, N8nClient, type CredentialRef, type OwnerAccount, type StoredWorkflow, type WorkflowJson } from './n8n-client';
import { packageLoadProblem, startN8n, type N8nServer } from './n8n-server';
import { startOutsideWorld, type OutsideWorld } from './outside-world';
import { onInterrupt } from './processes';
import { defaultProgress, ensureN8nRuntime, type N8nRuntime, type ProgressLog } from './runtime';
import { loadExamples, prepareWorkflow, type ExampleFile } from './workflows';

/** Registry data the simulator is seeded with, so the Host API credential test has a publisher. */
export const DEMO_PUBLISHER_ID = 'demo-publisher';
export const DEMO_PUBLISHING_TOKEN = 'sim-publishing-token';
export const DEMO_REPOHOST_TOKEN = 'sim-repohost-token';

export const CREDENTIAL_NAMES = { hostCloudApi: 'Host Cloud API', hostApi: 'Host API' } as const;

export interface ImportedExample extends ExampleFile {
	stored: StoredWorkflow;
}

export interface HostStack {
	runtime: N8nRuntime;
	simulator: Simulator;
	/** Files "from the internet" for examples that download something (offline stand-in). */
	outside: OutsideWorld;
	n8n: N8nServer;
	/** Signed in as the owner. */
	client: N8nClient;
	owner: OwnerAccount;
	/** By credential type: hostCloudApi, hostApi. */
	credentials: Record<'hostCloudApi' | 'hostApi', CredentialRef>;
	/** The data each credential was created with (the right secrets). */
	credentialData: Record<'hostCloudApi' | 'hostApi', Record<string, string>>;
	/** examples/*.json as imported (empty unless importExamples). */
	examples: ImportedExample[];
	/** Node types (full names) this n8n has loaded that declare webhooks. */
	nodeTypesWithWebhooks: Set<string>;
	/**
	 * Imports a workflow with its credentials bound to this stack's (or, by type, to those given in
	 * `credentials`) and returns it as stored.
	 */
	importWorkflow(workflow: WorkflowJson, name?: string, credentials?: Record<string, CredentialRef>): Promise<StoredWorkflow>;
	/** n8n's production URL of a trigger node's webhook (activate the workflow first). */
	webhookUrl(workflow: WorkflowJson, nodeName: string, path: string): string;
	stop(): Promise<void>;
}

export interface StartStackOptions {
	simulator?: SimulatorOptions;
	/** Import examples/*.json (default true). */
	importExamples?: boolean;
	/** Extra n8n environment. */
	n8nEnv?: Record<string, string>;
	progress?: ProgressLog;
}

const step = (progress: ProgressLog, line: string) => progress(line);

export async function startHostStack(options: StartStackOptions = {}): Promise<HostStack> {
	const progress = options.progress ?? defaultProgress;
	const toStop: Array<() => Promise<void>> = [];
	const stopAll = async () => {
		while (toStop.length > 0) {
			const stop = toStop.pop()!;
			await stop().catch((error: Error) => progress(`while stopping: ${error.message}`));
		}
	};
	const unregister = onInterrupt(stopAll);

	try {
		const runtime = await ensureN8nRuntime(progress);

		const simulator = await startSimulator(options.simulator ?? {});
		toStop.push(() => simulator.close());
		simulator.registry.seedPublisher({ id: DEMO_PUBLISHER_ID, name: 'Demo Publisher' });
		step(progress, `simulator: cloud ${simulator.baseUrl}, registry ${simulator.registryUrl}`);
		const outside = await startOutsideWorld();
		toStop.push(() => outside.close());

		step(progress, `starting n8n ${runtime.n8nVersion} on Node ${runtime.nodeVersion}`);
		const started = Date.now();
		const n8n = await startN8n({ runtime, env: options.n8nEnv });
		toStop.push(() => n8n.stop());
		step(progress, `n8n ready at ${n8n.url} in ${((Date.now() - started) / 1000).toFixed(1)}s (user folder ${n8n.userFolder})`);

		const loadProblem = packageLoadProblem(n8n.logFile);
		if (loadProblem) throw new Error(`n8n could not load the built package (check \`npm run build\`):\n${loadProblem}`);

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
		const importWorkflow = async (workflow: WorkflowJson, name?: string, bound: Record<string, CredentialRef> = {}) =>
			await client.createWorkflow(prepareWorkflow(workflow, { ...credentials, ...bound }, { nodeTypesWithWebhooks, name }));

		const examples: ImportedExample[] = [];
		if (options.importExamples ?? true) {
			for (const example of loadExamples()) {
				examples.push({ ...example, stored: await importWorkflow(example.workflow) });
			}
			step(
				progress,
				`imported ${examples.length} example workflow(s)${examples.length ? `: ${examples.map((e) => e.file).join(', ')}` : ''}`,
			);
		}

		return {
			runtime,
			simulator,
			outside,
			n8n,
			client,
			owner: DEMO_OWNER,
			credentials,
			credentialData,
			examples,
			nodeTypesWithWebhooks,
			importWorkflow,
			webhookUrl(workflow, nodeName, path) {
				const node = workflow.nodes.find((candidate) => candidate.name === nodeName);
				if (!node?.webhookId) throw new Error(`Node "${nodeName}" has no webhook id (import the workflow through importWorkflow)`);
				return `${n8n.url}/webhook/${node.webhookId}/${path.replace(/^\/+/, '')}`;
			},
			async stop() {
				await stopAll();
				unregister();
			},
		};
	} catch (error) {
		await stopAll();
		unregister();
		throw error;
	}
}
