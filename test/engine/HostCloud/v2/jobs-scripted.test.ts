/**
 * Host Cloud's jobs on v2 through n8n's engine against a scripted v2 server on loopback
 * (`test/support/scripted-v2.ts`), counting what the node sends: one submit per item try with its
 * Idempotency-Key and the partner key; the same key after an unknown outcome or a 429, and the item
 * failed naming it when the server has seen it (one job in all); the job read once at the end its
 * stream told of; polling at the Poll Interval when the server does not stream (501) or has too many
 * streams open (429, not waited out); an answer about another job refused; a failed job's node and
 * code in words; Stop and Max Wait cancelling only the node's own job; Extra Data and a UI-format
 * workflow refused before anything is sent; Wait for Completion, Get Status and Cancel Jobs by id.
 */
import { EngineHarness } from '../../../support/engine';
import { startScriptedV2, type ScriptedV2 } from '../../../support/scripted-v2';
import { txt2img } from '../../../support/cloud';
import { uiTxt2img } from '../../../support/ui-workflows';
import { registerToolTypes, toolsFor } from '../../../support/tools';

const API_KEY = 'v2-key-3c1f9e';
const PARTNER_KEY = 'partner-key-77ab20';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let v2: ScriptedV2;
let harness: EngineHarness;
let credential: string;
beforeAll(async () => {
	v2 = await startScriptedV2();
	harness = new EngineHarness();
	registerToolTypes(harness);
	credential = harness.addCredential(
		'hostCloudV2Api',
		{ baseUrl: v2.url, apiKey: API_KEY, platformApiKey: PARTNER_KEY },
		'Host Cloud V2 API',
	);
});
afterEach(() => v2.reset());
afterAll(async () => await v2.close());

const QUICK = { pollIntervalSeconds: 0.1, maxWaitMinutes: 0.5, useWebSocket: true };
const node = (parameters: Record<string, unknown>, settings: Record<string, unknown> = {}) => ({
	type: 'hostCloud',
	parameters: { apiGeneration: 'v2', ...parameters },
	credentials: { hostCloudV2Api: credential },
	...settings,
});
const execute = (more: Record<string, unknown> = {}) =>
	node({
		resource: 'workflow',
		operation: 'execute',
		workflow: JSON.stringify(txt2img()),
		waitOptions: QUICK,
		downloadFiles: false,
		...more,
	});
const submits = () => v2.requests('POST', '/api/v2/jobs').filter((r) => r.url === '/api/v2/jobs');
const keysSent = () => submits().map((r) => r.headers['idempotency-key']);
const reads = () => v2.requests('GET', '/api/v2/jobs/').filter((r) => !r.url.endsWith('/events'));
const streams = () => v2.requests('GET', '/api/v2/jobs/').filter((r) => r.url.endsWith('/events'));
const cancels = () => v2.requests('POST', '/api/v2/jobs/').filter((r) => r.url.endsWith('/cancel'));

describe('Execute on v2', () => {
	test('submits the graph with an Idempotency-Key and the partner key, hears the end on the stream, reads the job once, outputs its links', async () => {
		const result = await harness.runNode(execute(), [{ json: {} }]);

		expect(result.status).toBe('success');
		expect(submits()).toHaveLength(1);
		const sent = JSON.parse(submits()[0]!.body);
		expect(sent).toEqual({ workflow: txt2img(), extra_data: { api_key_comfy_org: PARTNER_KEY } });
		expect(keysSent()[0]).toMatch(UUID);
		expect(submits()[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
		const [job] = [...v2.jobs.values()];
		expect(streams()).toHaveLength(1);
		expect(reads()).toHaveLength(1);
		const item = result.items[0]!;
		expect(item.json).toMatchObject({ job_id: job!.id, prompt_id: job!.id, status: 'succeeded', output_count: 1 });
		expect(item.json.images).toEqual([
			expect.objectContaining({
				asset_id: `asset-${job!.id}`,
				node_id: '9',
				name: 'out.png',
				type: 'image',
				content_type: 'image/png',
				size_bytes: 68,
			}),
		]);
		expect(item.pairedItem).toEqual({ item: 0 });
	});

	test('"Never Add" sends no partner key', async () => {
		await harness.runNode(execute({ additionalFields: { partnerApiKey: 'never' } }), [{ json: {} }]);
		expect(JSON.parse(submits()[0]!.body)).toEqual({ workflow: txt2img() });
	});

	test('a server that does not stream (501) is polled at the Poll Interval, and not asked to stream again', async () => {
		v2.script.events = 'not-implemented';
		v2.script.runsForMs = 1000;
		const result = await harness.runNode(execute({ waitOptions: { ...QUICK, pollIntervalSeconds: 0.25 } }), [{ json: {} }, { json: {} }]);

		expect(result.status).toBe('success');
		// Each job asks once; after the 501 it is polled, never asked again.
		expect(streams()).toHaveLength(2);
		// About 1 s at 0.25 s a read, for each of the two jobs: never a read per event loop turn.
		expect(reads().length).toBeGreaterThanOrEqual(4);
		expect(reads().length).toBeLessThanOrEqual(14);
	});

	test('429 too_many_streams is not waited out (its Retry-After is 30 s): the job is polled at once', async () => {
		v2.script.events = 'too-many-streams';
		const result = await harness.runNode(execute(), [{ json: {} }]);

		expect(result.status).toBe('success');
		expect(streams()).toHaveLength(1);
		expect(reads().length).toBeGreaterThanOrEqual(1);
	}, 20_000);

	test.each(['reset', 'upstream_error'] as const)(
		'an answer lost after the job was made (%s): the same key once more, refused as reused; the item fails naming the key; one job',
		async (lost) => {
			v2.script.loseSubmits = [lost];
			const result = await harness.runNode(execute(), [{ json: {} }]);

			expect(result.status).toBe('error');
			expect(v2.jobs.size).toBe(1);
			expect(keysSent()).toHaveLength(2);
			expect(keysSent()[1]).toBe(keysSent()[0]);
			expect(result.error('Node')?.message).toContain(`Idempotency-Key ${keysSent()[0]}`);
			expect(result.error('Node')?.message).toContain('may have started a job');
		},
	);

	test('a 429 queue_full is waited out and the same key sent again: one job', async () => {
		v2.script.refuseSubmits = ['queue_full'];
		const result = await harness.runNode(execute(), [{ json: {} }]);

		expect(result.status).toBe('success');
		expect(keysSent()).toHaveLength(2);
		expect(keysSent()[1]).toBe(keysSent()[0]);
		expect(v2.jobs.size).toBe(1);
	}, 20_000);

	test('Retry On Fail after a lost answer sends the same key, refused as reused: the item fails naming it, one job', async () => {
		v2.script.loseSubmits = ['reset'];
		const retried = await harness.runNode(node(execute().parameters, { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 }), [
			{ json: {} },
		]);

		expect(retried.status).toBe('error');
		expect(v2.jobs.size).toBe(1);
		// Try 1: the key and its resend; try 2 (the retry): the same key, refused.
		expect(keysSent()).toHaveLength(3);
		expect(new Set(keysSent()).size).toBe(1);
		expect(retried.error('Node')?.message).toContain(`Idempotency-Key ${keysSent()[0]}`);
	});

	test('Retry On Fail after Max Wait (job left running) takes the same job, running or done since: one submit, one job', async () => {
		v2.script.runsForMs = 1500;
		const waitOptions = { ...QUICK, maxWaitMinutes: 0.015, onTimeout: 'keep' };
		const result = await harness.runNode(
			node(execute({ waitOptions }).parameters, { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 }),
			[{ json: {} }],
		);

		expect(result.status).toBe('success');
		expect(submits()).toHaveLength(1);
		expect(result.items[0]!.json).toMatchObject({ job_id: [...v2.jobs.keys()][0], status: 'succeeded' });
		expect(cancels()).toHaveLength(0);
	}, 20_000);

	test("Retry On Fail after the job's files could not be read takes the same job: one submit", async () => {
		// This server serves no asset bytes (and until assetToBinary is built, nothing reads them): every try's download fails.
		const result = await harness.runNode(
			node(execute({ downloadFiles: true }).parameters, { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 }),
			[{ json: {} }],
		);

		expect(result.status).toBe('error');
		expect(submits()).toHaveLength(1);
		expect(v2.jobs.size).toBe(1);
	}, 20_000);

	test('a definite refusal (402) releases the key: a Retry On Fail submits once more, and one job is made', async () => {
		v2.script.refuseSubmits = ['insufficient_credits'];
		const result = await harness.runNode(node(execute().parameters, { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 }), [
			{ json: {} },
		]);

		expect(result.status).toBe('success');
		expect(keysSent()).toHaveLength(2);
		expect(v2.jobs.size).toBe(1);
	});

	test('an answer about another job is refused, never taken as this job', async () => {
		v2.script.answerAnotherJob = true;
		v2.script.events = 'not-implemented';
		const result = await harness.runNode(execute(), [{ json: {} }]);

		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/answer about job .* cannot be used: it is about another job/);
	});

	test("a failed job's item (Continue On Fail) names its node, class, code and message, paired with its item", async () => {
		v2.script.failAt = { node_id: '3', class_type: 'KSampler', message: 'CUDA out of memory' };
		const result = await harness.runNode(node(execute().parameters, { continueOnFail: true }), [{ json: {} }]);

		expect(result.status).toBe('success');
		const [job] = [...v2.jobs.values()];
		expect(result.items[0]!.json).toMatchObject({
			error: `Job ${job!.id} failed at node 3 (KSampler): node_execution_error: CUDA out of memory`,
			job_id: job!.id,
			prompt_id: job!.id,
			error_code: 'node_execution_error',
			node_id: '3',
			class_type: 'KSampler',
		});
		expect(result.items[0]!.pairedItem).toEqual({ item: 0 });
	});

	test('Max Wait with On Timeout "Cancel the Job" cancels the job it submitted; left running otherwise', async () => {
		v2.script.runsForMs = 60_000;
		const quickMaxWait = { ...QUICK, maxWaitMinutes: 0.01, onTimeout: 'cancel' };
		const cancelled = await harness.runNode(execute({ waitOptions: quickMaxWait }), [{ json: {} }]);
		expect(cancelled.status).toBe('error');
		expect(cancelled.error('Node')?.message).toContain('did not finish within Max Wait');
		expect(cancels().map((r) => r.url)).toEqual([`/api/v2/jobs/${[...v2.jobs.keys()][0]}/cancel`]);

		v2.reset();
		v2.script.runsForMs = 60_000;
		await harness.runNode(execute({ waitOptions: { ...quickMaxWait, onTimeout: 'keep' } }), [{ json: {} }]);
		expect(cancels()).toHaveLength(0);
	}, 20_000);

	test("n8n's Stop cancels the job the node submitted", async () => {
		v2.script.runsForMs = 60_000;
		const stop = new AbortController();
		const running = harness.runNode(execute(), [{ json: {} }], { signal: stop.signal });
		while (v2.jobs.size === 0 || streams().length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
		stop.abort();
		await running;
		for (let i = 0; i < 100 && cancels().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
		expect(cancels().map((r) => r.url)).toEqual([`/api/v2/jobs/${[...v2.jobs.keys()][0]}/cancel`]);
	});

	test("n8n's Stop while the submit is under way: its answer is still read, and the job it names is cancelled", async () => {
		v2.script.runsForMs = 60_000;
		v2.script.answerSubmitAfterMs = 300;
		const stop = new AbortController();
		const running = harness.runNode(execute(), [{ json: {} }], { signal: stop.signal });
		while (v2.jobs.size === 0) await new Promise((resolve) => setTimeout(resolve, 10));
		stop.abort();
		await running;
		for (let i = 0; i < 100 && cancels().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
		expect(cancels().map((r) => r.url)).toEqual([`/api/v2/jobs/${[...v2.jobs.keys()][0]}/cancel`]);
		expect(submits()).toHaveLength(1);
	});

	test('Extra Data and a UI-format workflow are refused by name before anything is sent', async () => {
		const extra = await harness.runNode(execute({ additionalFields: { extraData: '{"client_tag":"x"}' } }), [{ json: {} }]);
		expect(extra.status).toBe('error');
		expect(extra.error('Node')?.message).toContain('Extra Data');
		expect(extra.error('Node')?.description).toContain('client_tag');
		const ui = await harness.runNode(execute({ workflow: JSON.stringify(uiTxt2img()) }), [{ json: {} }]);
		expect(ui.status).toBe('error');
		expect(ui.error('Node')?.message).toContain('UI format');
		expect(v2.server.seen).toHaveLength(0);
	});
});

describe('Submit, Wait for Completion, Get Status and Cancel Jobs on v2', () => {
	test('Submit answers job_id and prompt_id; Wait for Completion takes that id and outputs the job', async () => {
		const submitted = await harness.runNode(node({ resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()) }), [
			{ json: {} },
		]);
		const id = submitted.items[0]!.json.prompt_id as string;
		expect(submitted.items[0]!.json).toEqual({ job_id: id, prompt_id: id, status: 'submitted' });
		expect(keysSent()[0]).toMatch(UUID);

		const waited = await harness.runNode(
			node({ resource: 'workflow', operation: 'waitForCompletion', promptId: id, waitOptions: QUICK, downloadFiles: false }),
			[{ json: {} }],
		);
		expect(waited.status).toBe('success');
		expect(waited.items[0]!.json).toMatchObject({ job_id: id, status: 'succeeded', output_count: 1 });
		expect(cancels()).toHaveLength(0);
	});

	test('Get Status answers the status, progress, outputs and job_error of the job asked for', async () => {
		v2.script.runsForMs = 0;
		await harness.runNode(node({ resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()) }), [{ json: {} }]);
		const [id] = [...v2.jobs.keys()];
		const status = await harness.runNode(node({ resource: 'workflow', operation: 'getStatus', promptId: id }), [{ json: {} }]);
		expect(status.items[0]!.json).toMatchObject({
			job_id: id,
			prompt_id: id,
			status: 'succeeded',
			state: 'completed',
			finished: true,
			job_error: null,
			output_count: 1,
		});
		// The job's error is job_error: n8n reads an item's `error` as the node's own failure (Continue On Fail, the error output).
		expect(status.items[0]!.json).not.toHaveProperty('error');

		v2.script.answerAnotherJob = true;
		const other = await harness.runNode(node({ resource: 'workflow', operation: 'getStatus', promptId: id }), [{ json: {} }]);
		expect(other.status).toBe('error');
		expect(other.error('Node')?.message).toContain('it is about another job');
	});

	test('Cancel Jobs cancels each id and reports its resulting status', async () => {
		v2.script.runsForMs = 60_000;
		await harness.runNode(node({ resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()) }), [{ json: {} }]);
		const [id] = [...v2.jobs.keys()];
		const result = await harness.runNode(node({ resource: 'queue', operation: 'cancelJobs', promptIds: id }), [{ json: {} }]);
		expect(result.items[0]!.json).toEqual({ requested: [id], jobs: [{ job_id: id, prompt_id: id, status: 'canceled' }] });
		expect(cancels()).toHaveLength(1);
	});
});

describe('Execute as a tool on v2', () => {
	const tool = () => ({
		name: 'Generate',
		type: 'hostCloud',
		parameters: {
			apiGeneration: 'v2',
			resource: 'workflow',
			operation: 'execute',
			workflow: JSON.stringify(txt2img()),
			toolWaitSeconds: 1,
			waitOptions: QUICK,
		},
		credentials: { hostCloudV2Api: credential },
	});

	test('answers its finished job', async () => {
		const [generate] = await toolsFor(harness, tool());
		const answer = JSON.parse(await generate!.invoke({}));
		const [job] = [...v2.jobs.values()];
		expect(JSON.stringify(answer)).toContain(job!.id);
		expect(JSON.stringify(answer)).toContain('succeeded');
	});

	test('a job still running at Tool Wait is answered as running and left running (no cancel)', async () => {
		v2.script.runsForMs = 60_000;
		const [generate] = await toolsFor(harness, tool());
		const answer = await generate!.invoke({});
		const [job] = [...v2.jobs.values()];
		expect(answer).toContain('"status":"running"');
		expect(answer).toContain(job!.id);
		expect(answer).toContain('Wait for Completion');
		expect(cancels()).toHaveLength(0);
	}, 20_000);
});
