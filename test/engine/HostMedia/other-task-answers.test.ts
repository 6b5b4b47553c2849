/**
 * Host Media against status answers about another task: a gateway in front of the simulator that
 * mixes its tasks up answers a status read with another task's status, well formed, within every
 * bound and true of that task. Such an answer is never taken as the task's: Poll keeps polling (it
 * tells nothing of the task) and fails at Max Wait naming both tasks; Get Task Status fails the
 * item naming both; the resume of Wait for Notification resumes with an item that says so. No file
 * of the other task is ever downloaded.
 */
import type { IDataObject } from 'n8n-workflow';

import { readBinary } from '../../support/engine';
import { startMixedUpGateway, type MixedUpGateway } from '../../support/hostile-service';
import { IMAGE_URL, PNG_SIGNATURE, upscaleFromUrl, useMediaEnv } from '../../support/media';
import { startWaitingExecution, type WaitingExecution } from '../../support/waiting-execution';
import { waitUntil } from '../../support/wait';
import { hostApiCredential } from '../../support/credential-fixtures';

const env = useMediaEnv({ notifyBackoffMs: 10 });
/** Polls every 10 ms and gives up after 600 ms: the mixed-up answers never end by themselves. */
const SHORT = { waitOptions: { pollIntervalSeconds: 0.01, maxWaitMinutes: 0.01 } };
const EXTEND = { resource: 'video', operation: 'extend', model: 'videoq2-turbo' };

let gateway: MixedUpGateway;
/** The Host API credential whose requests go through the gateway. */
let throughGateway: string;
let world: WaitingExecution | undefined;

beforeAll(async () => {
	gateway = await startMixedUpGateway(env.sim.registryUrl);
	throughGateway = env.harness.addCredential('hostApi', hostApiCredential({ accessToken: env.sim.accessToken, registryUrl: gateway.url }));
});
afterEach(async () => {
	await world?.receiver.close();
	world = undefined;
	gateway.decoy = undefined;
	gateway.mixedUp = 0;
});
afterAll(async () => {
	await gateway.close();
});

const viaGateway = (parameters: IDataObject) => env.run(parameters, [{ json: {} }], { credential: throughGateway });
/** Files fetched from the simulator's signed storage (a result file of any task). */
const storageReads = () => env.sim.requests.filter((request) => request.host === 'storage');
/** A finished upscale task with a result file: the task the gateway answers about. */
const finishedUpscale = () => env.sim.proxy.seedImageTask('image-upscaler', { status: 'COMPLETED' });
/** The image task the node started (the one that is not `decoy`). */
const startedImageTask = (decoy: string) => [...env.sim.proxy.imageTasks.keys()].find((id) => id !== decoy)!;

describe('Poll Until Finished', () => {
	it("an answer about another task is not this task's: polling goes on, and Max Wait fails naming both tasks, with nothing downloaded", async () => {
		const decoy = finishedUpscale();
		gateway.decoy = decoy.taskId;
		const result = await viaGateway(upscaleFromUrl(SHORT));
		expect(result.status).toBe('error');
		const own = startedImageTask(decoy.taskId);
		const error = result.error('Node') as { message?: string; description?: string };
		expect(error.message).toBe(
			`The status of the upscale task ${own} could not be read within 600 ms: the service's last answer was about another task, ${decoy.taskId}`,
		);
		expect(error.description).toMatch(/^An answer about another task is never taken as this task's status/);
		// Polled on after the first mixed-up answer, as after an unreadable one.
		expect(gateway.mixedUp).toBeGreaterThan(1);
		expect(result.items).toHaveLength(0);
		expect(storageReads()).toHaveLength(0);
	});

	it('once the answers are about the task again, the item is its own task with its own file', async () => {
		const decoy = finishedUpscale();
		gateway.decoy = decoy.taskId;
		let settled = false;
		const running = viaGateway(upscaleFromUrl({ waitOptions: { pollIntervalSeconds: 0.01, maxWaitMinutes: 0.5 } })).finally(
			() => (settled = true),
		);
		// Two mixed-up answers, unless the node already took one of them as its result.
		await waitUntil(() => gateway.mixedUp >= 2 || settled);
		gateway.decoy = undefined;
		const result = await running;
		expect(result.status).toBe('success');
		const own = env.sim.proxy.imageTasks.get(startedImageTask(decoy.taskId))!;
		expect(result.items[0]!.json).toMatchObject({ task_id: own.taskId, status: 'succeeded', url: own.generated[0] });
		expect((await readBinary(result.items[0]!.binary!.data!)).toString('hex', 0, 8)).toBe(PNG_SIGNATURE);
		// Only the task's own file was fetched, never the other task's.
		expect(storageReads().map((request) => request.path)).toEqual([new URL(own.generated[0]!).pathname]);
	});
});

describe('Get Task Status', () => {
	it('image: an answer about another task fails the item naming the task asked and the one answered', async () => {
		const asked = env.sim.proxy.seedImageTask('image-upscaler');
		const decoy = finishedUpscale();
		gateway.decoy = decoy.taskId;
		const result = await viaGateway({ resource: 'image', operation: 'getTaskStatus', taskType: 'image-upscaler', taskId: asked.taskId });
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(
			`The service answered the status of upscale task ${asked.taskId} with that of another task, ${decoy.taskId}`,
		);
		expect(result.items).toHaveLength(0);
		expect(gateway.mixedUp).toBe(1);
	});

	/** A finished video task (the decoy) and one still running (the task asked about), both on the simulator. */
	async function twoVideoTasks(): Promise<{ decoy: string; asked: string }> {
		const finished = await env.run({ ...EXTEND, downloadFiles: false, waitOptions: { pollIntervalSeconds: 0.01, maxWaitMinutes: 0.5 } });
		const decoy = String(finished.items[0]!.json.task_id);
		const started = await env.withSlowTasks(() => env.run({ ...EXTEND, waitMode: 'none' }));
		return { decoy, asked: String(started.items[0]!.json.task_id) };
	}

	it('video: an answer about another task fails the item naming both, and nothing of it is passed on', async () => {
		const { decoy, asked } = await twoVideoTasks();
		gateway.decoy = decoy;
		const result = await viaGateway({ resource: 'video', operation: 'getTaskStatus', taskId: asked });
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(
			`The service answered the status of video task ${asked} with that of another task, ${decoy}`,
		);
		expect(result.items).toHaveLength(0);
		expect(env.sim.requestsTo('GET', `/proxy/video/tasks/${decoy}/creations`).length).toBeGreaterThan(0);
	});

	it('video, with Wait for Completion: polls on, then fails at Max Wait naming both tasks, with no video downloaded', async () => {
		const { decoy, asked } = await twoVideoTasks();
		gateway.decoy = decoy;
		const reads = storageReads().length;
		const result = await viaGateway({ resource: 'video', operation: 'getTaskStatus', taskId: asked, waitForCompletion: true, ...SHORT });
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(
			`The status of the video task ${asked} could not be read within 600 ms: the service's last answer was about another task, ${decoy}`,
		);
		expect(gateway.mixedUp).toBeGreaterThan(1);
		expect(storageReads()).toHaveLength(reads);
	});
});

describe('Wait for Notification', () => {
	it('a status answer about another task resumes with an item naming both tasks; nothing is downloaded', async () => {
		const decoy = finishedUpscale();
		gateway.decoy = decoy.taskId;
		world = await startWaitingExecution(env.harness, throughGateway, {
			resource: 'image',
			operation: 'upscale',
			imageSource: 'url',
			imageUrl: IMAGE_URL,
			waitMode: 'webhook',
		});
		const resumed = await world.resumed;
		expect(resumed.status).toBe('success');
		const [item] = resumed.output('Node');
		const own = startedImageTask(decoy.taskId);
		expect(item!.json).toMatchObject({ task_id: own, status: 'unknown', final: false, generated: [] });
		expect(item!.json.error).toBe(
			`The notification says the upscale task ${own} finished (COMPLETED), but its status could not be read from the service, so nothing was downloaded: ` +
				`the service's status answer is about another task, ${decoy.taskId}, not ${own}. Check the task with Get Task Status.`,
		);
		expect(item!.binary).toBeUndefined();
		expect(storageReads()).toHaveLength(0);
	});
});
