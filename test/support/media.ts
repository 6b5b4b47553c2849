/**
 * Shared set-up of the Host Media engine tests: a simulator on loopback, the engine harness with a
 * Host API credential for it, and a `run` that executes the node with fast polling.
 */
import type { IDataObject } from 'n8n-workflow';

import { picturePng } from '../../simulator/shared/png';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../simulator/server';
import { EngineHarness, type RunOptions } from './engine';
import type { HarnessItem } from './items-node';
import { hostApiCredential } from './credential-fixtures';

export const IMAGE_URL = 'https://images.example.com/photo.png';
export const PNG = picturePng(8, 8);
export const PNG_BASE64 = PNG.toString('base64');
export const PNG_SIGNATURE = '89504e470d0a1a0a';

/** Upscale of an image given by URL, as the tests vary it (wait mode and options in `more`). */
export const upscaleFromUrl = (more: IDataObject = {}): IDataObject => ({
	resource: 'image',
	operation: 'upscale',
	imageSource: 'url',
	imageUrl: IMAGE_URL,
	...more,
});

/** Polls every 10 ms, gives up after 30 s: tests never wait on the 5 s default. */
export const FAST = { waitOptions: { pollIntervalSeconds: 0.01, maxWaitMinutes: 0.5 } };

/** FAST in version 1's layout, for workflows saved with version 1 (run them with `typeVersion: 1`). */
export const FAST_V1 = { pollingOptions: { pollIntervalSeconds: 0.01, maxWaitMinutes: 0.5 } };

export interface MediaEnv {
	readonly sim: Simulator;
	readonly harness: EngineHarness;
	readonly credential: string;
	run(
		parameters: IDataObject,
		items?: HarnessItem[],
		/** `typeVersion`: the node's version, the latest when left out. */
		options?: RunOptions & { continueOnFail?: boolean; credential?: string; typeVersion?: number },
	): ReturnType<EngineHarness['runNode']>;
	/** Requests that reached the media proxy (any path under /proxy). */
	proxyRequests(): Simulator['requests'];
	/** Runs `body` with the simulator's tasks slowed to a step a minute, restoring them afterwards. */
	withSlowTasks<T>(body: () => Promise<T>): Promise<T>;
}

/** Starts the simulator for the file's tests, resets it after each test, closes it at the end. */
export function useMediaEnv(options: SimulatorOptions = {}): MediaEnv {
	let sim: Simulator | undefined;
	let harness: EngineHarness | undefined;
	let credential = '';
	beforeAll(async () => {
		sim = await startSimulator({ imageStepMs: 15, videoStepMs: 15, ...options });
		harness = new EngineHarness();
		credential = harness.addCredential('hostApi', hostApiCredential({ accessToken: sim.accessToken, registryUrl: sim.registryUrl }));
	});
	afterEach(() => sim?.reset());
	afterAll(async () => {
		await sim?.close();
	});
	return {
		get sim() {
			return sim!;
		},
		get harness() {
			return harness!;
		},
		get credential() {
			return credential;
		},
		async run(parameters, items = [{ json: {} }], runOptions = {}) {
			const { continueOnFail, credential: credentialId, typeVersion, ...engineOptions } = runOptions;
			return await harness!.runNode(
				{
					type: 'hostMedia',
					typeVersion,
					parameters: parameters as never,
					credentials: { hostApi: credentialId ?? credential },
					continueOnFail,
				},
				items,
				engineOptions,
			);
		},
		proxyRequests() {
			return sim!.requestsTo(undefined, '/proxy');
		},
		async withSlowTasks(body) {
			const { imageStepMs, videoStepMs } = sim!.options;
			sim!.options.imageStepMs = 60_000;
			sim!.options.videoStepMs = 60_000;
			try {
				return await body();
			} finally {
				Object.assign(sim!.options, { imageStepMs, videoStepMs });
			}
		},
	};
}
