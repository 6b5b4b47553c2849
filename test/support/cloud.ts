/**
 * Shared set-up of the Host Cloud engine tests: the standard text-to-image graph, a simulator
 * with a credential pointing at it, and the runtime WebSocket (Node 22+ has it; Node 20 needs
 * --experimental-websocket, which the npm scripts pass; under a bare `npx jest` on Node 20 the
 * `ws` package stands in, with the same WHATWG interface).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import WebSocketPackage from 'ws';

import { startSimulator, type Simulator, type SimulatorOptions } from '../../simulator/server';
import { EngineHarness } from './engine';
import { type CloudServerUnderTest, directHeaders, hostCloudCredential } from './cloud-credential';

export type Graph = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: { title?: string } }>;

const TXT2IMG: Graph = JSON.parse(readFileSync(join(__dirname, '../fixtures/txt2img-api.json'), 'utf8'));

export const txt2img = (): Graph => structuredClone(TXT2IMG);

const runtime = globalThis as { WebSocket?: unknown };
if (runtime.WebSocket === undefined) runtime.WebSocket = WebSocketPackage;

/** Runs `fn` with no WebSocket global, as on a runtime without one; restores it after. */
export async function withoutWebSocket<T>(fn: () => Promise<T>): Promise<T> {
	const saved = runtime.WebSocket;
	delete runtime.WebSocket;
	try {
		return await fn();
	} finally {
		runtime.WebSocket = saved;
	}
}

export interface CloudSetup {
	sim: Simulator;
	harness: EngineHarness;
	credential: string;
	baseline: Simulator['options'];
	/** What a direct client of the server sends (the cloud's key, or the self-hosted server's proxy header). */
	headers: Record<string, string>;
}

/** The header a self-hosted server's reverse proxy wants in the tests (its value is a secret). */
export const PROXY_HEADER = { header: 'X-Proxy-Token', value: 'proxy-secret-5b1e9c' };

/** The Host Cloud API credential for a simulator of either flavour (self-hosted: with the proxy header when it wants one). */
export function credentialFor(sim: Simulator): ICredentialDataDecryptedObject {
	return hostCloudCredential(underTest(sim));
}

const underTest = (sim: Simulator): CloudServerUnderTest => ({
	flavour: sim.options.flavour,
	baseUrl: sim.baseUrl,
	apiKey: sim.apiKey,
	proxy: sim.options.proxyAuth,
});

/** The cloud flavour, or the self-hosted one behind a reverse proxy that wants PROXY_HEADER. */
export async function startCloud(options: SimulatorOptions = {}): Promise<CloudSetup> {
	const proxy = options.flavour === 'self-hosted' ? { proxyAuth: PROXY_HEADER } : {};
	const sim = await startSimulator({ nodeMs: 5, ...proxy, ...options });
	const harness = new EngineHarness();
	const credential = harness.addCredential('hostCloudApi', credentialFor(sim), 'Host Cloud API');
	const headers = directHeaders(underTest(sim));
	return { sim, harness, credential, baseline: { ...sim.options }, headers };
}

/** Back to a clean simulator between tests. */
export function resetCloud(setup: CloudSetup): void {
	Object.assign(setup.sim.options, setup.baseline);
	setup.sim.cloud.setOutputSize(undefined);
	setup.sim.reset();
}

/**
 * One simulator and harness for a test file: started before its tests, reset after each, closed at
 * the end. The object is filled in by `beforeAll`, so read it inside tests and hooks only.
 */
export function cloudForSuite(options: SimulatorOptions = {}): CloudSetup {
	const setup = {} as CloudSetup;
	beforeAll(async () => {
		Object.assign(setup, await startCloud(options));
	});
	afterEach(() => resetCloud(setup));
	afterAll(async () => {
		await setup.sim?.close();
	});
	return setup;
}

export { waitUntil } from './wait';

/** The file references of a job as the simulator stored them: what a complete result must list. */
export function storedFiles(sim: Simulator, promptId: string): Array<{ filename: string; subfolder: string; type: string }> {
	const job = sim.cloud.jobs.get(promptId)!;
	return Object.values(job.outputs).flatMap((output) =>
		Object.values(output).flatMap((refs) =>
			refs.map((ref) => ({ filename: String(ref.filename), subfolder: String(ref.subfolder ?? ''), type: String(ref.type ?? 'output') })),
		),
	);
}

/** A 2×2 PNG, for uploads. */
export const TINY_PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGP8z8DwnwEIGBkZGRgYAAAhDgQBs9Y0XQAAAABJRU5ErkJggg==',
	'base64',
);

/**
 * Node time (ms) for a job that must still be running when the test acts on it (a short Max Wait,
 * a cancel): the seven-node job takes minutes. A job of a second or so finishes first on a loaded
 * machine, where timers and requests lag behind the simulator's absolute deadlines.
 */
export const OUTLASTING_NODE_MS = 60_000;

/**
 * Small timings so the reconciling paths run fast in tests (the node's "Wait Options"). The silence
 * check keeps the node's default: a shorter one fires in a loaded machine's pauses and takes the
 * node down a path the test did not ask for (outputs from the job record, a reopened socket).
 * Tests of a silent socket set their own.
 */
export const FAST_WAIT = { pollIntervalSeconds: 0.05, silenceSeconds: 15, maxWaitMinutes: 1 / 3 };

/** Host Cloud Execute of the text-to-image graph with FAST_WAIT, plus `more` parameters. */
export const executeTxt2img = (more: Record<string, unknown> = {}): Record<string, unknown> => ({
	resource: 'workflow',
	operation: 'execute',
	workflow: JSON.stringify(txt2img()),
	waitOptions: FAST_WAIT,
	...more,
});

/** Every cancel or interrupt request the simulator took, its bodies as one text (both flavours' routes). */
export function cancelRequestBodies(sim: Simulator): string {
	return [...sim.requestsTo('POST', '/api/queue'), ...sim.requestsTo('POST', '/api/interrupt'), ...sim.requestsTo('POST', '/queue')]
		.map((request) => request.body)
		.join('\n');
}
