/**
 * The simulator's self-hosted flavour (a ComfyUI-compatible server), seen as a client sees it:
 * routes with and without /api, no key, completion read from /history (there is no job status
 * route), the queue and interrupt semantics, and WebSocket messages routed by clientId.
 * Files and the reverse proxy are in files.test.ts.
 */
import type { Simulator } from '../../../simulator/server';
import type { SelfHostedArea } from '../../../simulator/self-hosted/area';
import { waitUntil } from '../../support/wait';
import { type Graph, PNG_SIGNATURE, SelfHostedClient, txt2img } from '../support/self-hosted';
import { useSimulator } from '../support/simulator';

let sim: Simulator;
const client = new SelfHostedClient(() => sim);

useSimulator(
	{ flavour: 'self-hosted', nodeMs: 5, parallelLimit: 3 },
	(started) => (sim = started),
	() => client.closeAll(),
);

const PARTNER: Graph = {
	'1': { class_type: 'PartnerImageGenerate', inputs: { prompt: 'a red fox', width: 1024, height: 1024, seed: 1 } },
	'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'fox' } },
};

/** Makes the next jobs slow enough to be seen pending and running. */
const slowJobs = () => (sim.options.nodeMs = 40);

describe('routes', () => {
	test.each(['', '/api'])('prefix "%s": object_info, prompt, queue, history and view all answer, without any key', async (prefix) => {
		const info = await client.get(`${prefix}/object_info`);
		expect(info.status).toBe(200);
		expect(info.data.KSampler).toMatchObject({ name: 'KSampler', output: ['LATENT'] });
		expect((await client.get(`${prefix}/object_info/KSampler`)).data).toEqual({ KSampler: info.data.KSampler });
		expect((await client.get(`${prefix}/object_info/NoSuchNode`)).data).toEqual({});
		expect((await client.get(`${prefix}/prompt`)).data).toEqual({ exec_info: { queue_remaining: 0 } });
		expect((await client.get(`${prefix}/system_stats`)).data.devices[0]).toMatchObject({ type: 'cuda' });

		const submitted = await client.post(`${prefix}/prompt`, { prompt: txt2img(), client_id: 'c1' });
		expect(submitted.status).toBe(200);
		expect(submitted.data).toEqual({ prompt_id: expect.stringMatching(/^[0-9a-f-]{36}$/), number: expect.any(Number), node_errors: {} });
		const entry = await client.finished(submitted.data.prompt_id, prefix);
		const image = entry.outputs['9'].images[0];
		expect(image).toEqual({ filename: expect.stringMatching(/^lighthouse_\d{5}_\.png$/), subfolder: '', type: 'output' });

		const file = await client.http.get(`${sim.baseUrl}${prefix}/view`, { params: image, responseType: 'arraybuffer' });
		expect(file.status).toBe(200);
		expect(Buffer.from(file.data).subarray(0, 8)).toEqual(PNG_SIGNATURE);
		const queue = await client.get(`${prefix}/queue`);
		expect(queue.data).toEqual({ queue_running: [], queue_pending: [] });
		expect(Object.keys((await client.get(`${prefix}/history`)).data)).toEqual([submitted.data.prompt_id]);
		expect(sim.requestsTo().every((r) => r.headers['x-api-key'] === undefined)).toBe(true);
	});

	test('the WebSocket answers at /ws and /api/ws', async () => {
		for (const path of ['/ws', '/api/ws']) {
			const socket = await client.open('sock', path);
			expect(socket.json[0]).toEqual({ type: 'status', data: { status: { exec_info: { queue_remaining: 0 } }, sid: 'sock' } });
		}
		const anonymous = await client.open();
		expect(anonymous.json[0].data.sid).toMatch(/^[0-9a-f]{32}$/);
	});

	test('there is no job status or job record route, with or without /api', async () => {
		const id = await client.submit({ prompt: txt2img() });
		await client.finished(id);
		for (const path of [`/api/job/${id}/status`, `/job/${id}/status`, `/api/jobs/${id}`, `/jobs/${id}`]) {
			expect((await client.get(path)).status).toBe(404);
		}
	});

	test('validation errors are 400 with error and node_errors; a body that is not JSON is a 500', async () => {
		const graph = txt2img();
		graph['3'].inputs.steps = 0;
		const bad = await client.post('/prompt', { prompt: graph });
		expect(bad.status).toBe(400);
		expect(bad.data.error).toEqual({
			type: 'prompt_outputs_failed_validation',
			message: 'Prompt outputs failed validation',
			details: '',
			extra_info: {},
		});
		expect(bad.data.node_errors['3']).toMatchObject({ class_type: 'KSampler', dependent_outputs: ['9'] });
		expect(bad.data.node_errors['3'].errors[0]).toMatchObject({
			type: 'value_smaller_than_min',
			message: 'Value 0 smaller than min of 1',
			details: 'steps',
			extra_info: { input_name: 'steps', received_value: 0 },
		});

		const none = await client.post('/api/prompt', { client_id: 'x' });
		expect(none.status).toBe(400);
		expect(none.data).toEqual({ error: expect.objectContaining({ type: 'no_prompt' }), node_errors: {} });

		const broken = await client.http.post(`${sim.baseUrl}/api/prompt`, '{"prompt": ', {
			headers: { 'content-type': 'application/json' },
			transformRequest: [(data: string) => data],
		});
		expect(broken.status).toBe(500);
		expect(sim.cloud.jobs.size).toBe(0);
	});

	test('a prompt_id chosen by the client is used; the same one again is refused', async () => {
		const first = await client.post('/api/prompt', { prompt: txt2img(), prompt_id: 'my-own-id' });
		expect(first.data.prompt_id).toBe('my-own-id');
		expect((await client.post('/api/prompt', { prompt: txt2img(), prompt_id: 'my-own-id' })).status).toBe(400);
		expect((await client.finished('my-own-id')).status.status_str).toBe('success');
	});
});

describe('a server that says "slow down"', () => {
	test("the slow-down fault answers 429 with Retry-After in the server's error shape, and queues nothing", async () => {
		sim.faults.slowDown = { count: 1, pathPrefix: '/api/prompt', retryAfter: 2 };
		const told = await client.post('/api/prompt', { prompt: txt2img(), client_id: 'c1' });
		expect(told.status).toBe(429);
		expect(told.headers['retry-after']).toBe('2');
		expect(told.data).toMatchObject({ error: { type: 'rate_limited' } });
		expect((await client.get('/api/queue')).data).toEqual({ queue_running: [], queue_pending: [] });
		await client.submit({ prompt: txt2img(), client_id: 'c1' });
	});
});

describe('completion is read from the history', () => {
	test('while queued or running a job is in /queue and its history is {}; once over, the history has it', async () => {
		slowJobs();
		const first = await client.submit({ prompt: txt2img(), client_id: 'me' });
		// Another seed: the same graph again would be served from the server's cache at once.
		const other = txt2img();
		other['3'].inputs.seed = 2;
		const second = await client.submit({ prompt: other, client_id: 'me' });
		// One job runs at a time whatever the parallelLimit option says, as on a self-hosted server.
		expect(await client.queue()).toEqual({ running: [first], pending: [second] });
		for (const id of [first, second]) expect((await client.get(`/api/history/${id}`)).data).toEqual({});
		expect((await client.get('/api/prompt')).data.exec_info.queue_remaining).toBe(2);

		const entry = await client.finished(first);
		expect((await client.queue()).running).toEqual([second]);
		expect(entry.status).toEqual({
			status_str: 'success',
			completed: true,
			messages: [
				['execution_start', { prompt_id: first, timestamp: expect.any(Number) }],
				['execution_cached', { nodes: [], prompt_id: first, timestamp: expect.any(Number) }],
				['execution_success', { prompt_id: first, timestamp: expect.any(Number) }],
			],
		});
		expect(entry.outputs).toEqual({ '9': { images: [expect.objectContaining({ type: 'output' })] } });
		expect(entry.meta).toEqual({ '9': { node_id: '9', display_node: '9', parent_node: null, real_node_id: '9' } });
		expect(entry.prompt).toEqual([expect.any(Number), first, txt2img(), { client_id: 'me' }, ['9']]);

		await client.finished(second);
		expect(await client.queue()).toEqual({ running: [], pending: [] });
		expect(Object.keys((await client.get('/api/history')).data)).toEqual([first, second]);
		expect(Object.keys((await client.get('/api/history', { max_items: '1' })).data)).toEqual([second]);
		expect(Object.keys((await client.get('/api/history', { max_items: '1', offset: '0' })).data)).toEqual([first]);
		expect((sim.cloud as SelfHostedArea).history.size).toBe(2);
	});

	test('a failed job has status error, completed false and the execution_error among its messages', async () => {
		sim.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'Out of GPU memory.', nodeId: '3' });
		const id = await client.submit({ prompt: txt2img() });
		const { status, outputs } = await client.finished(id);
		expect(status.status_str).toBe('error');
		expect(status.completed).toBe(false);
		const [type, data] = status.messages.at(-1);
		expect(type).toBe('execution_error');
		expect(data).toMatchObject({
			node_id: '3',
			node_type: 'KSampler',
			exception_type: 'OOMError',
			current_outputs: ['9', '8', '3', '7', '6', '5', '4'],
		});
		expect(outputs).toEqual({});
	});

	test('POST /history deletes entries or clears them', async () => {
		const [a, b] = [await client.submit({ prompt: txt2img() }), await client.submit({ prompt: txt2img() })];
		await client.finished(b);
		await client.finished(a);
		expect((await client.post('/history', { delete: [a] })).status).toBe(200);
		expect(Object.keys((await client.get('/history')).data)).toEqual([b]);
		await client.post('/api/history', { clear: true });
		expect((await client.get('/history')).data).toEqual({});
	});

	test('partner nodes need a key in extra_data.api_key_comfy_org (upstream’s name); the history leaves it out, /queue echoes it', async () => {
		const refused = await client.submit({ prompt: PARTNER });
		const failure = (await client.finished(refused)).status.messages.at(-1);
		expect(failure[0]).toBe('execution_error');
		expect(failure[1]).toMatchObject({
			node_id: '1',
			exception_type: 'Exception',
			exception_message: expect.stringMatching(/^Unauthorized/),
		});

		slowJobs();
		const blocker = await client.submit({ prompt: txt2img() });
		const key = 'my-platform-key';
		const paid = await client.submit({ prompt: PARTNER, client_id: 'p', extra_data: { api_key_comfy_org: key, extra_pnginfo: { a: 1 } } });
		const pending = (await client.get('/api/queue')).data.queue_pending[0];
		expect(pending).toEqual([
			expect.any(Number),
			paid,
			PARTNER,
			{ api_key_comfy_org: key, extra_pnginfo: { a: 1 }, client_id: 'p' },
			['2'],
		]);
		await client.finished(blocker);
		const entry = await client.finished(paid);
		expect(entry.status.status_str).toBe('success');
		expect(entry.prompt[3]).toEqual({ extra_pnginfo: { a: 1 }, client_id: 'p' });
		expect(JSON.stringify((await client.get('/api/history')).data)).not.toContain(key);
		expect(sim.cloud.jobs.get(paid)?.extraDataKeys).toEqual(['api_key_comfy_org', 'extra_pnginfo', 'client_id']);
		expect(
			sim
				.requestsTo('POST', '/api/prompt')
				.map((r) => r.body)
				.join(),
		).not.toContain(key);
	});
});

describe('queue delete and interrupt', () => {
	test('delete takes pending jobs off the queue silently and leaves the running one alone', async () => {
		slowJobs();
		const socket = await client.open('me');
		const [running, pending, other] = [
			await client.submit({ prompt: txt2img(), client_id: 'me' }),
			await client.submit({ prompt: txt2img(), client_id: 'me' }),
			await client.submit({ prompt: txt2img(), client_id: 'me' }),
		];
		const answer = await client.post('/api/queue', { delete: [running, pending, 'unknown-id'] });
		expect(answer.status).toBe(200);
		expect(answer.data).toBe('');
		expect(await client.queue()).toEqual({ running: [running], pending: [other] });

		expect((await client.finished(running)).status.status_str).toBe('success');
		await client.finished(other);
		expect((await client.get(`/api/history/${pending}`)).data).toEqual({});
		expect(socket.of(pending)).toEqual([]);
		expect(socket.json.some((m) => m.type === 'execution_interrupted')).toBe(false);
	});

	test('clear empties the pending queue and leaves the running job alone', async () => {
		slowJobs();
		const running = await client.submit({ prompt: txt2img() });
		await client.submit({ prompt: txt2img() });
		await client.submit({ prompt: txt2img() });
		expect((await client.post('/queue', { clear: true })).status).toBe(200);
		expect(await client.queue()).toEqual({ running: [running], pending: [] });
		expect((await client.finished(running)).status.status_str).toBe('success');
	});

	test('interrupt with a prompt_id stops that job only if it is the running one', async () => {
		slowJobs();
		const socket = await client.open('me');
		const running = await client.submit({ prompt: txt2img(), client_id: 'me' });
		const queued = await client.submit({ prompt: txt2img(), client_id: 'me' });
		await waitUntil(() => socket.of(running).some((m) => m.type === 'executing'));

		const notRunning = await client.post('/api/interrupt', { prompt_id: queued });
		expect(notRunning.status).toBe(200);
		expect(notRunning.data).toBe('');
		expect(await client.queue()).toEqual({ running: [running], pending: [queued] });

		await client.post('/interrupt', { prompt_id: running });
		const entry = await client.finished(running);
		expect(entry.status.status_str).toBe('error');
		expect(entry.status.completed).toBe(false);
		expect(entry.status.messages.map((m: unknown[]) => m[0])).toEqual(['execution_start', 'execution_cached', 'execution_interrupted']);
		expect(socket.of(running).find((m) => m.type === 'execution_interrupted')?.data).toMatchObject({
			node_id: expect.any(String),
			executed: expect.any(Array),
		});
		expect(socket.of(running).at(-1)).toEqual({ type: 'executing', data: { node: null, prompt_id: running } });
		expect((await client.finished(queued)).status.status_str).toBe('success');
	});

	test('interrupt without a body stops whatever runs', async () => {
		slowJobs();
		const running = await client.submit({ prompt: txt2img() });
		const queued = await client.submit({ prompt: txt2img() });
		await waitUntil(() => sim.cloud.jobs.get(running)?.status === 'in_progress');
		expect((await client.post('/api/interrupt')).status).toBe(200);
		expect((await client.finished(running)).status.messages.at(-1)[0]).toBe('execution_interrupted');
		expect((await client.finished(queued)).status.status_str).toBe('success');
	});
});

describe('WebSocket messages go by clientId', () => {
	test("a job's messages reach the socket of its client_id only; queue status and text frames reach every socket", async () => {
		const mine = await client.open('mine');
		const theirs = await client.open('theirs');
		const id = await client.submit({ prompt: txt2img(), client_id: 'mine' });
		await client.finished(id);
		await waitUntil(() => mine.of(id).some((m) => m.type === 'executing' && m.data.node === null));

		const types = mine.types(id);
		expect(types[0]).toBe('execution_start');
		expect(types).toEqual(expect.arrayContaining(['execution_cached', 'executing', 'progress', 'progress_state', 'executed']));
		expect(types.slice(-2)).toEqual(['execution_success', 'executing']);
		expect(
			mine
				.of(id)
				.filter((m) => m.type === 'executing')
				.map((m) => m.data.node),
		).toEqual(['4', '5', '6', '7', '3', '8', '9', null]);
		// No invented other jobs: a self-hosted socket only carries its own client's jobs.
		expect(mine.jobMessages().every((m) => m.data.prompt_id === id)).toBe(true);
		const state = mine.of(id).find((m) => m.type === 'progress_state');
		expect(Object.values(state?.data.nodes ?? {}).every((n: any) => n.state !== 'pending')).toBe(true);
		expect(mine.framesOfType(1).length + mine.framesOfType(4).length).toBeGreaterThan(0);

		expect(theirs.jobMessages()).toEqual([]);
		expect(theirs.json.length).toBeGreaterThan(1); // queue status updates are broadcast
		expect(theirs.framesOfType(1)).toEqual([]);
		expect(theirs.framesOfType(4)).toEqual([]);
		expect(theirs.framesOfType(3).length).toBe(mine.framesOfType(3).length); // progress text goes to all
	});

	test('without client_id nobody gets the start, executing, executed or success; progress and previews go to every socket', async () => {
		const socket = await client.open('watcher');
		const id = await client.submit({ prompt: txt2img() });
		await client.finished(id);
		await new Promise((r) => setTimeout(r, 20));
		const types = new Set(socket.types(id));
		for (const type of ['execution_start', 'execution_cached', 'executing', 'executed', 'execution_success']) {
			expect(types.has(type)).toBe(false);
		}
		expect([...types].sort()).toEqual(['progress', 'progress_state']);
		expect(socket.framesOfType(1).length + socket.framesOfType(4).length).toBeGreaterThan(0);
	});

	test('a second socket with the same clientId takes over; when either one closes, the id is forgotten', async () => {
		const older = await client.open('shared');
		const newer = await client.open('shared');
		const first = await client.submit({ prompt: txt2img(), client_id: 'shared' });
		await client.finished(first);
		await waitUntil(() => newer.types(first).includes('execution_success'));
		expect(older.jobMessages()).toEqual([]);

		older.ws.close();
		await older.closed();
		await new Promise((r) => setTimeout(r, 20));
		const second = await client.submit({ prompt: txt2img(), client_id: 'shared' });
		await client.finished(second);
		await new Promise((r) => setTimeout(r, 20));
		expect(newer.of(second)).toEqual([]); // still open, but no longer registered under its id
		expect(sim.cloud.openSockets()).toBe(1);
	});

	test('a client reconnecting while its job runs is told the node being executed', async () => {
		slowJobs();
		const first = await client.open('again');
		const id = await client.submit({ prompt: txt2img(), client_id: 'again' });
		await waitUntil(() => first.of(id).some((m) => m.type === 'executing'));
		first.ws.close();
		await first.closed();
		const second = await client.open('again');
		await waitUntil(() => second.json.length > 1);
		expect(second.json[1]).toEqual({ type: 'executing', data: { node: expect.any(String) } });
		await waitUntil(() => second.types(id).includes('execution_success'));
	});

	test('fault switches work here too: a dropped socket does not stop the job, whose history still completes', async () => {
		const socket = await client.open('drop');
		sim.faults.dropWebSocket = { afterMessages: 3 };
		const id = await client.submit({ prompt: txt2img(), client_id: 'drop' });
		await socket.closed();
		expect((await client.finished(id)).status.status_str).toBe('success');
		expect(socket.types(id)).not.toContain('execution_success');
	});
});
