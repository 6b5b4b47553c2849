/**
 * A server of the v2 jobs API for the e2e cases. The stack's simulator is the v1 cloud; this is a
 * second simulator, in the v2 flavour (the cloud surface: a bearer key, outputs' bytes behind a
 * 302 to signed storage), and a Host Cloud V2 API credential for it created in n8n through its REST
 * API as a user fills it in (Base URL, API Key). `close()` deletes the credential and stops the server.
 * Every exchange it had can be checked against the published contract:
 * `contractBreaches(server.simulator)` of test/support/v2-contract.ts.
 */
import { startSimulator, type V2Simulator, type V2SimulatorOptions } from '../../../simulator/server';
import { outputItems, type CredentialRef, type ExecutionResult, type N8nClient, type RunItem } from './n8n-client';
import { V2_CREDENTIAL_TYPE } from './instance-setup';

/** The credential name examples/v2-text-to-image.json and the v2 recipe refer to. */
export const V2_CREDENTIAL_NAME = 'Host Cloud V2 API';
export const V2_EXAMPLE = 'v2-text-to-image.json';

/** What these helpers need of a stack: its signed-in client (the single-process stack's, or queue mode's main process's). */
export type V2Host = { client: N8nClient };

export interface V2Server {
	simulator: V2Simulator;
	/** The Host Cloud V2 API credential pointing at this server. */
	credential: CredentialRef;
	/** The data the credential was created with. */
	credentialData: Record<string, unknown>;
	close(): Promise<void>;
}

export async function startV2Server(
	stack: V2Host,
	options: { credentialName?: string; simulator?: Omit<V2SimulatorOptions, 'flavour'> } = {},
): Promise<V2Server> {
	const simulator = await startSimulator({ ...options.simulator, flavour: 'v2', v2: { surface: 'cloud', ...options.simulator?.v2 } });
	try {
		const credentialData = { baseUrl: simulator.baseUrl, apiKey: simulator.apiKey, platformApiKey: '' };
		const credential = await stack.client.createCredential(
			options.credentialName ?? V2_CREDENTIAL_NAME,
			V2_CREDENTIAL_TYPE,
			credentialData,
		);
		return {
			simulator,
			credential,
			credentialData,
			async close() {
				try {
					await stack.client.deleteCredential(credential);
				} finally {
					await simulator.close();
				}
			},
		};
	} catch (error) {
		await simulator.close();
		throw error;
	}
}

/**
 * One v2 server for the cases of the `describe` this is called in: started before its first case
 * on the stack `stack()` answers then, closed after its last. Returns the accessor the cases call.
 */
export function useV2Server(stack: () => V2Host): () => V2Server {
	let server: V2Server | undefined;
	beforeAll(async () => {
		server = await startV2Server(stack());
	});
	afterAll(async () => {
		await server?.close();
	});
	return () => server ?? fail('The v2 server did not start (see the first error above)');
}

function fail(message: string): never {
	throw new Error(message);
}

/** The bytes the server keeps for an asset, read from its storage as a signed link would give them (no exchange of the v2 API). */
export async function assetBytes(simulator: V2Simulator, assetId: string): Promise<Buffer> {
	const record = simulator.v2.assets.get(assetId) ?? fail(`The v2 server has no asset ${assetId}`);
	const response = await fetch(simulator.storage.signedUrl(record.key));
	if (response.status !== 200) fail(`The storage answered ${response.status} for asset ${assetId}`);
	return Buffer.from(await response.arrayBuffer());
}

export interface ImageFromV2 {
	item: RunItem;
	jobId: string;
	assetId: string;
	/** The image as n8n stored it (binary data `data`). */
	bytes: Buffer;
}

/**
 * What a Host Cloud node on v2 with Download Files on promises: one item naming a job of this server
 * that succeeded (`job_id`, and `prompt_id` the same id), whose first image is one of the job's
 * output assets and is in binary data `data`, a PNG with exactly the asset's bytes. Throws, saying what differs.
 */
export async function imageFromV2Server(
	execution: ExecutionResult,
	nodeName: string,
	stack: V2Host,
	server: V2Server,
): Promise<ImageFromV2> {
	const items = outputItems(execution, nodeName);
	if (items.length !== 1) fail(`"${nodeName}" output ${items.length} items, not 1`);
	const item = items[0]!;
	const jobId = item.json.job_id;
	if (typeof jobId !== 'string' || jobId === '') fail(`"${nodeName}" output no job_id: ${JSON.stringify(item.json).slice(0, 300)}`);
	if (item.json.prompt_id !== jobId) fail(`prompt_id ${String(item.json.prompt_id)} is not the job_id ${jobId}`);
	const job = server.simulator.v2.jobs.get(jobId) ?? fail(`The v2 server has no job ${jobId}`);
	if (job.status !== 'succeeded' || item.json.status !== 'succeeded')
		fail(`Job ${jobId} is ${job.status} on the server and ${String(item.json.status)} in the item, not succeeded`);
	const image = (item.json.images as Array<{ asset_id?: string }> | undefined)?.[0];
	const assetId = image?.asset_id ?? fail(`"${nodeName}" output no image with an asset_id: ${JSON.stringify(item.json).slice(0, 300)}`);
	if (!job.outputs.some((output) => output.asset.id === assetId)) fail(`Asset ${assetId} is not an output of job ${jobId}`);
	const binary =
		item.binary?.data ?? fail(`"${nodeName}" has no binary data (it has: ${Object.keys(item.binary ?? {}).join(', ') || 'none'})`);
	if (binary.mimeType !== 'image/png') fail(`The downloaded image is ${binary.mimeType}, not image/png`);
	const bytes = await stack.client.binaryContent(binary);
	const kept = await assetBytes(server.simulator, assetId);
	if (!bytes.equals(kept)) fail(`n8n holds ${bytes.length} bytes for asset ${assetId}; the server keeps ${kept.length} other bytes`);
	return { item, jobId, assetId, bytes };
}
