/**
 * Host Media's "Wait for Notification" against forged notifications. Anyone holding the resume URL
 * can send the execution a notification, so it only wakes the execution: the task's result (its
 * URLs, and whether it finished or failed) is read from the service's status path with the
 * credential, and only the files of that answer are downloaded. Where the service has no status
 * path, the notification is taken as it is, but only http(s) result URLs are fetched.
 */
import type { IDataObject } from 'n8n-workflow';

import { readBinary } from '../../support/engine';
import {
	INTERNAL_BODY,
	RESULT_FILE,
	startInternalAddress,
	startServiceWithoutStatusPaths,
	withResultUrl,
	type HostileService,
} from '../../support/hostile-service';
import { IMAGE_URL, PNG_SIGNATURE, useMediaEnv } from '../../support/media';
import { startWaitingExecution, type WaitingExecution, type WaitingOptions } from '../../support/waiting-execution';
import { hostApiCredential } from '../../support/credential-fixtures';

const env = useMediaEnv({ notifyBackoffMs: 10 });

const IMAGING = '/proxy/imaging/v1/ai';
const UPSCALE = { resource: 'image', operation: 'upscale', imageSource: 'url', imageUrl: IMAGE_URL, waitMode: 'webhook' };
const RELIGHT = { resource: 'image', operation: 'relight', imageSource: 'url', imageUrl: IMAGE_URL, waitMode: 'webhook' };
const ENHANCE_SKIN = { resource: 'image', operation: 'enhanceSkin', imageSource: 'url', imageUrl: IMAGE_URL, waitMode: 'webhook' };
const EXTEND = { resource: 'video', operation: 'extend', model: 'videoq2-turbo', waitMode: 'webhook' };

/** Final notifications of the service, as a forger rewrites them. */
const isFinal = (body: unknown) => /"(COMPLETED|FAILED|success|failed)"/.test(JSON.stringify(body));

let internal: HostileService;
let world: WaitingExecution | undefined;

beforeAll(async () => {
	internal = await startInternalAddress();
});
afterEach(async () => {
	await world?.receiver.close();
	world = undefined;
	internal.seen.length = 0;
});
afterAll(async () => {
	await internal.close();
});

const wait = (parameters: IDataObject, options: WaitingOptions = {}, credential = env.credential) =>
	startWaitingExecution(env.harness, credential, parameters, options);

/** Points every final notification at the internal address. */
const forgeResults: WaitingOptions = {
	rewrite: (body) => (isFinal(body) ? withResultUrl(body, `${internal.url}/latest/meta-data`) : body),
};

describe('Wait for Notification: the result comes from the status path', () => {
	it('an image task downloads the file its status names, not the internal address the notification names', async () => {
		world = await wait(UPSCALE, forgeResults);
		const [item] = (await world.resumed).output('Node');
		expect(item!.json).toMatchObject({ status: 'succeeded', raw_status: 'COMPLETED', url: expect.stringContaining(env.sim.storageUrl) });
		expect(item!.json.generated).toEqual([expect.stringContaining(env.sim.storageUrl)]);
		expect((await readBinary(item!.binary!.data!)).toString('hex', 0, 8)).toBe(PNG_SIGNATURE);
		expect(internal.seen).toHaveLength(0);
		// One status read, on the final notification, with the credential (the simulator answers 401 without it).
		const reads = env.sim.requestsTo('GET', `${IMAGING}/image-upscaler/`);
		expect(reads).toHaveLength(1);
		expect(reads[0]!.status).toBe(200);
	});

	it('a video task downloads the video its status names, not the internal address', async () => {
		world = await wait(EXTEND, forgeResults);
		const [item] = (await world.resumed).output('Node');
		expect(item!.json).toMatchObject({ status: 'succeeded', video_url: expect.stringContaining(env.sim.storageUrl) });
		expect(JSON.stringify(item!.json)).not.toContain(internal.url);
		expect((await readBinary(item!.binary!.data!)).subarray(4, 8).toString()).toBe('ftyp');
		expect(internal.seen).toHaveLength(0);
		expect(env.sim.requestsTo('GET', '/proxy/video/tasks/')).toHaveLength(1);
	});

	it('a notification that says "finished" while the service says the task runs keeps the execution waiting', async () => {
		await env.withSlowTasks(async () => {
			world = await wait(EXTEND);
			const waiting = await world.waiting;
			const taskId = String(waiting.output('Node')[0]!.json.task_id);
			const forged = await world.notify({ task_id: taskId, state: 'success', creations: [{ url: `${internal.url}/admin` }] });
			// 409, as n8n answers a call that comes too early: a service that sent it retries.
			expect(forged.status).toBe(409);
			expect(forged.body).toMatchObject({ error: 'not_finished' });
			expect(String((forged.body as IDataObject).message)).toContain(`video extension task ${taskId}`);
			expect(forged.result.workflowData).toBeUndefined();
			expect(internal.seen).toHaveLength(0);
		});
	});

	it('knows its task without execution custom data, which a real n8n does not load for the resume webhook', async () => {
		await env.withSlowTasks(async () => {
			world = await wait(EXTEND);
			const waiting = await world.waiting;
			const taskId = String(waiting.output('Node')[0]!.json.task_id);
			const { metadata: _customData, ...resultData } = waiting.run.data.resultData;
			const asN8nLoadsIt = { ...waiting.run.data, resultData };
			const workflow = env.harness.buildWorkflow(world.spec);
			const notify = (body: unknown) =>
				env.harness.callWebhook(workflow, 'Node', { body }, { runExecutionData: asN8nLoadsIt, executionId: waiting.executionId });

			const other = await notify({ task_id: '1700000000000999999', state: 'success', creations: [{ url: `${internal.url}/x` }] });
			expect(other.status).toBe(400);
			expect(other.body).toMatchObject({ error: 'other_task', message: expect.stringContaining(`waits for task ${taskId}`) });
			const own = await notify({ task_id: taskId, state: 'success', creations: [{ url: `${internal.url}/x` }] });
			expect(own.status).toBe(409);
			expect(env.sim.requestsTo('GET', `/proxy/video/tasks/${taskId}/creations`)).toHaveLength(1);
			expect(internal.seen).toHaveLength(0);
		});
	});

	it('the status decides a failure, whatever the notification says', async () => {
		env.sim.proxy.failNextTask('ContentRejected');
		world = await wait(EXTEND, {
			rewrite: (body) => (isFinal(body) ? withResultUrl({ ...(body as IDataObject), state: 'success' }, `${internal.url}/x`) : body),
		});
		const json = (await world.resumed).output('Node')[0]!.json;
		expect(json).toMatchObject({ status: 'failed', raw_status: 'failed', final: true, creations: [] });
		expect(json.error).toBe(`The video extension task ${String(json.task_id)} failed: ContentRejected`);
		expect(internal.seen).toHaveLength(0);
	});

	it('a status that cannot be read resumes with an item that says so; nothing is downloaded', async () => {
		env.sim.faults.http5xx = { count: 1000, pathPrefix: '/proxy/video/tasks/', status: 403 };
		world = await wait(EXTEND, forgeResults);
		const resumed = await world.resumed;
		expect(resumed.status).toBe('success');
		const [item] = resumed.output('Node');
		const taskId = String(item!.json.task_id);
		expect(item!.json).toMatchObject({ status: 'unknown', final: false, creations: [] });
		expect(String(item!.json.error)).toMatch(
			new RegExp(
				`^The notification says the video extension task ${taskId} finished \\(success\\), but its status could not be read from the service, so nothing was downloaded: .*HTTP 403`,
			),
		);
		expect(JSON.stringify(item!.json)).not.toContain(internal.url);
		expect(item!.binary).toBeUndefined();
		expect(internal.seen).toHaveLength(0);
		// The service was told the notification arrived, so it does not keep retrying.
		expect(world.answers[world.answers.length - 1]).toBe(200);
	});
});

describe('Wait for Notification on a service without status paths', () => {
	let service: HostileService;
	let credential: string;
	beforeAll(async () => {
		service = await startServiceWithoutStatusPaths();
		credential = env.harness.addCredential(
			'hostApi',
			hostApiCredential({ accessToken: 'token-of-a-service-without-status', registryUrl: service.url }),
		);
	});
	afterEach(() => {
		service.seen.length = 0;
	});
	afterAll(async () => {
		await service.close();
	});

	/** Waits for a task of `parameters`, then sends the final notification naming `url` as its result. */
	async function notifyResult(parameters: IDataObject, url: string) {
		world = await wait(parameters, {}, credential);
		const taskId = String((await world.waiting).output('Node')[0]!.json.task_id);
		const body =
			parameters.resource === 'video'
				? { task_id: taskId, state: 'success', creations: [{ url }] }
				: { data: { task_id: taskId, status: 'COMPLETED', generated: [url] } };
		const call = await world.notify(body);
		return { call, item: (await world.resumed).output('Node')[0]!, taskId };
	}

	it.each([
		['video', EXTEND],
		['relight', RELIGHT],
		['skin enhancer', ENHANCE_SKIN],
	])('a %s task: the notification is trusted, its http(s) result is downloaded', async (_kind, parameters) => {
		const { call, item } = await notifyResult(parameters, `${service.url}/files/result.mp4`);
		expect(call.status).toBe(200);
		expect(item.json).toMatchObject({ status: 'succeeded', final: true });
		expect(await readBinary(item.binary!.data!)).toEqual(RESULT_FILE);
		// The status path was asked first, and answered 404.
		expect(service.seen.filter((r) => r.method === 'GET').map((r) => r.url)).toEqual([
			expect.stringMatching(/^\/proxy\//),
			'/files/result.mp4',
		]);
	});

	it.each([
		['gopher', () => `gopher://127.0.0.1:${new URL(internal.url).port}/_GET%20/admin`],
		['file', () => 'file:///etc/passwd'],
		['data', () => `data:image/png;base64,${Buffer.from(INTERNAL_BODY).toString('base64')}`],
		['ftp', () => `ftp://127.0.0.1:${new URL(internal.url).port}/result.mp4`],
	])('a result URL with the %s: scheme is refused, neither fetched nor passed on', async (_scheme, url) => {
		const { call, item, taskId } = await notifyResult(EXTEND, url());
		expect(call.status).toBe(200);
		expect(item.json).toMatchObject({ status: 'succeeded', final: true, creations: [], refused_addresses: 1 });
		expect(String(item.json.error)).toBe(
			`The video extension task ${taskId} finished, but its files could not be downloaded: 1 of the result addresses of the extend task ${taskId} is not an http(s) web address, so its result is not passed on`,
		);
		expect(JSON.stringify(item.json)).not.toContain(url());
		expect(item.binary).toBeUndefined();
		expect(internal.seen).toHaveLength(0);
	});

	it('a notification that echoes the access token (URL-encoded here) has it replaced before it reaches the item', async () => {
		world = await wait(EXTEND, {}, credential);
		const taskId = String((await world.waiting).output('Node')[0]!.json.task_id);
		const call = await world.notify({
			task_id: taskId,
			state: 'failed',
			message: `rejected ${encodeURIComponent('token-of-a-service-without-status')}`,
		});
		expect(call.status).toBe(200);
		const item = (await world.resumed).output('Node')[0]!;
		expect(item.json).toMatchObject({ status: 'failed', error: `The video extension task ${taskId} failed: rejected ***` });
		expect(JSON.stringify(item)).not.toContain('token-of-a-service-without-status');
	});

	it('an image task whose status path the spec shows: a 404 there is an error, not a reason to trust the notification', async () => {
		const { call, item, taskId } = await notifyResult(UPSCALE, `${service.url}/files/result.mp4`);
		expect(call.status).toBe(200);
		expect(item.json).toMatchObject({ task_id: taskId, status: 'unknown', generated: [] });
		expect(String(item.json.error)).toMatch(
			new RegExp(
				`^The notification says the upscale task ${taskId} finished \\(COMPLETED\\), but its status could not be read from the service, so nothing was downloaded: The service has no status for upscale task ${taskId} \\(HTTP 404`,
			),
		);
		expect(item.binary).toBeUndefined();
		expect(service.seen.map((r) => r.url)).not.toContain('/files/result.mp4');
	});
});
