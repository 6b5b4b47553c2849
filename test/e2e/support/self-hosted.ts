/**
 * A self-hosted, ComfyUI-compatible server for the e2e cases. The stack's simulator is the cloud
 * flavour; this is a second simulator, in the self-hosted flavour, behind a reverse proxy that
 * answers 401 to anything without its header, and a Host Cloud API credential for it created in
 * n8n through its REST API as a user would fill it in (Server: Self-Hosted, the Server URL, the
 * proxy's header under Proxy Headers). `close()` deletes the credential and stops the server.
 */
import { startSimulator, type Simulator } from '../../../simulator/server';
import { outputItems, type CredentialRef, type ExecutionResult, type RunItem } from './n8n-client';
import type { HostStack } from './stack';

/** The credential name examples/self-hosted-text-to-image.json refers to. */
export const SELF_HOSTED_CREDENTIAL_NAME = 'My ComfyUI server';
export const SELF_HOSTED_EXAMPLE = 'self-hosted-text-to-image.json';

export interface ProxyHeader {
	name: string;
	value: string;
}

const DEFAULT_PROXY_HEADER: ProxyHeader = { name: 'X-Proxy-Token', value: 'e2e-proxy-token-0003' };

export interface SelfHostedServer {
	simulator: Simulator;
	/** What the reverse proxy wants on every request and WebSocket upgrade. */
	proxyHeader: ProxyHeader;
	/** The Host Cloud API credential pointing at this server, with the proxy header. */
	credential: CredentialRef;
	/** The data the credential was created with. */
	credentialData: Record<string, unknown>;
	/** The same headers as the credential sends, for the test's own requests to the server. */
	headers: Record<string, string>;
	close(): Promise<void>;
}

export async function startSelfHostedServer(
	stack: HostStack,
	options: { proxyHeader?: ProxyHeader; credentialName?: string } = {},
): Promise<SelfHostedServer> {
	const proxyHeader = options.proxyHeader ?? DEFAULT_PROXY_HEADER;
	const simulator = await startSimulator({ flavour: 'self-hosted', proxyAuth: { header: proxyHeader.name, value: proxyHeader.value } });
	try {
		const credentialData = {
			server: 'selfHosted',
			serverUrl: simulator.baseUrl,
			platformApiKey: '',
			proxyHeaders: { values: [{ name: proxyHeader.name, value: proxyHeader.value }] },
			wsBaseUrl: '',
		};
		const credential = await stack.client.createCredential(
			options.credentialName ?? SELF_HOSTED_CREDENTIAL_NAME,
			'hostCloudApi',
			credentialData,
		);
		return {
			simulator,
			proxyHeader,
			credential,
			credentialData,
			headers: { [proxyHeader.name]: proxyHeader.value },
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

function fail(message: string): never {
	throw new Error(message);
}

export interface ImageFromServer {
	item: RunItem;
	/** The file's address in the output item. */
	url: string;
	/** The image as n8n stored it (binary data `data`). */
	bytes: Buffer;
}

/**
 * What a Host Cloud node with Download Files on promises for a self-hosted run: one item whose
 * first image has its address on the server (its /api/view link) and is in binary data `data`,
 * a PNG with exactly the bytes the server serves at that address. Throws, saying what differs.
 */
export async function imageFromServer(
	execution: ExecutionResult,
	nodeName: string,
	stack: HostStack,
	server: SelfHostedServer,
): Promise<ImageFromServer> {
	const items = outputItems(execution, nodeName);
	if (items.length !== 1) fail(`"${nodeName}" output ${items.length} items, not 1`);
	const item = items[0]!;
	const image = (item.json.images as Array<{ filename?: string; url?: string }> | undefined)?.[0];
	if (!image?.filename || !image.url)
		fail(`"${nodeName}" output no image with a filename and url: ${JSON.stringify(item.json).slice(0, 300)}`);
	const url = image.url;
	if (!url.startsWith(`${server.simulator.baseUrl}/api/view?`))
		fail(`The image's url ${url} is not a /api/view link of ${server.simulator.baseUrl}`);
	const binary =
		item.binary?.data ?? fail(`"${nodeName}" has no binary data (it has: ${Object.keys(item.binary ?? {}).join(', ') || 'none'})`);
	if (binary.mimeType !== 'image/png') fail(`The downloaded image is ${binary.mimeType}, not image/png`);
	if (binary.fileName !== image.filename) fail(`The binary data is named "${binary.fileName}", the file "${image.filename}"`);
	const bytes = await stack.client.binaryContent(binary);
	const response = await fetch(url, { headers: server.headers });
	if (response.status !== 200) fail(`The server answered ${response.status} for ${url}`);
	const served = Buffer.from(await response.arrayBuffer());
	if (!bytes.equals(served)) fail(`n8n holds ${bytes.length} bytes for ${image.filename}; the server serves ${served.length} other bytes`);
	return { item, url, bytes };
}
