/**
 * The v2 flavour on the cloud surface, as a client sees it over loopback HTTP: every endpoint and
 * every status of the contract it produces there. After each test every answer the simulator gave
 * is checked against the contract copy (test/simulator/support/v2.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { V2Simulator } from '../../../simulator/server';
import { picturePng } from '../../../simulator/shared/png';
import { contentHash } from '../../../simulator/v2/assets';
import { waitUntil } from '../../support/wait';
import { openStream, send, uploadForm, useV2Simulator, v2Client } from '../support/v2';

const WORKFLOW = JSON.parse(readFileSync(join(__dirname, '../../fixtures/txt2img-api.json'), 'utf8')) as Record<string, unknown>;
const BYTES = picturePng(8, 8, 3);

let sim: V2Simulator;
useV2Simulator({ nodeMs: 5, extraAccounts: [{ id: 'other' }] }, (s) => (sim = s));
const { call, auth } = v2Client(() => sim);
const other = () => ({ authorization: `Bearer ${sim.accounts[1].apiKey}` });

const submit = (body: unknown, headers: Record<string, string> = auth()) => call('POST', '/api/v2/jobs', body, headers);
const jobOf = (id: string) => sim.v2.jobs.get(id)!;
const finished = (id: string) => waitUntil(() => ['succeeded', 'failed', 'canceled', 'expired'].includes(jobOf(id)?.status) && jobOf(id));
const upload = async (fields: Record<string, string | string[]> = {}, headers = auth()) =>
	call('POST', '/api/v2/assets', uploadForm(BYTES, fields), headers);

describe('auth and routes', () => {
	test('a call without a bearer key, with the v1 X-API-Key header, or with an unknown key is 401 unauthorized', async () => {
		const attempts: Array<Record<string, string>> = [{}, { 'x-api-key': sim.apiKey }, { authorization: 'Bearer nope' }];
		for (const headers of attempts) {
			const answer = await call('GET', '/api/v2/jobs/any', undefined, headers);
			expect(answer.status).toBe(401);
			expect(answer.body.error.code).toBe('unauthorized');
		}
		expect((await call('GET', '/api/v2/jobs/any')).status).toBe(404);
	});

	test('unknown paths and methods under /api/v2, and paths outside it, are 404 not_found envelopes', async () => {
		for (const [method, path] of [
			['GET', '/api/v2/nothing'],
			['PUT', '/api/v2/jobs'],
			['GET', '/api/prompt'],
		]) {
			const answer = await call(method, path);
			expect(answer.status).toBe(404);
			expect(answer.body.error.code).toBe('not_found');
		}
	});
});

describe('assets', () => {
	test('an upload is 201 created_new; the same bytes again mint a new record over the same blob: 200, created_new false', async () => {
		const first = await upload({ tags: ['input', 'portrait'] });
		expect(first.status).toBe(201);
		expect(first.body).toMatchObject({ created_new: true, hash: contentHash(BYTES), size_bytes: BYTES.length, file_path: 'photo.png' });
		expect(first.body.job_id).toBeUndefined();
		const again = await upload();
		expect(again.status).toBe(200);
		expect(again.body.created_new).toBe(false);
		expect(again.body.id).not.toBe(first.body.id);
		expect(sim.v2.assets.get(first.body.id)?.tags).toEqual(['input', 'portrait']);
	});

	test('expires_in sets expires_at within 60 s..7 days; outside the bounds, or without a required field, it is a 422', async () => {
		const kept = await upload({ expires_in: '3600' });
		expect(Date.parse(kept.body.expires_at) - Date.parse(kept.body.created_at)).toBe(3600 * 1000);
		expect((await upload()).body.expires_at).toBeNull();
		for (const expires of ['59', '604801', 'soon']) expect((await upload({ expires_in: expires })).status).toBe(422);
		const noPath = await call('POST', '/api/v2/assets', uploadForm(BYTES, { content_type: 'image/png' }, false));
		expect(noPath.status).toBe(422);
		expect(noPath.body.error.message).toMatch(/file_path is required/);
		expect((await call('POST', '/api/v2/assets', { not: 'multipart' })).status).toBe(422);
	});

	test('expected_hash is verified: a mismatch is 409 hash_mismatch and mints nothing', async () => {
		const bad = await upload({ expected_hash: 'blake3:00' });
		expect(bad.status).toBe(409);
		expect(bad.body.error.code).toBe('hash_mismatch');
		expect(sim.v2.assets.size).toBe(0);
		expect((await upload({ expected_hash: contentHash(BYTES) })).status).toBe(201);
	});

	test('HEAD by-hash and from-hash see only blobs of the caller: another account gets 404', async () => {
		const hash = contentHash(BYTES);
		const path = `/api/v2/assets/by-hash/${encodeURIComponent(hash)}`;
		expect((await call('HEAD', path)).status).toBe(404);
		const uploaded = await upload();
		expect((await call('HEAD', path)).status).toBe(200);
		expect((await call('HEAD', path, undefined, other())).status).toBe(404);
		const same = await call('POST', '/api/v2/assets/from-hash', { hash, file_path: 'photo.png' });
		expect(same.status).toBe(200);
		expect(same.body.id).toBe(uploaded.body.id);
		expect((await call('POST', '/api/v2/assets/from-hash', { hash })).body.id).toBe(uploaded.body.id);
		const minted = await call('POST', '/api/v2/assets/from-hash', { hash, file_path: 'again.png', tags: ['input'] });
		expect(minted.status).toBe(201);
		expect(minted.body).toMatchObject({ file_path: 'again.png', created_new: false, hash });
		const theirs = await call('POST', '/api/v2/assets/from-hash', { hash }, other());
		expect(theirs.status).toBe(404);
		expect(theirs.body.error.code).toBe('blob_not_found');
		expect((await call('POST', '/api/v2/assets/from-hash', { file_path: 'x.png' })).status).toBe(404);
	});

	test('GET an asset gives fresh metadata; another account, or a deleted record, is 404; a second delete is 404', async () => {
		const { body } = await upload();
		const read = await call('GET', `/api/v2/assets/${body.id}`);
		expect(read.status).toBe(200);
		expect(read.body).toMatchObject({ id: body.id, hash: body.hash });
		expect(read.body.created_new).toBeUndefined();
		expect((await call('GET', `/api/v2/assets/${body.id}`, undefined, other())).status).toBe(404);
		expect((await call('DELETE', `/api/v2/assets/${body.id}`, undefined, other())).status).toBe(404);
		expect((await call('DELETE', `/api/v2/assets/${body.id}`)).status).toBe(204);
		expect((await call('DELETE', `/api/v2/assets/${body.id}`)).status).toBe(404);
		expect((await call('GET', `/api/v2/assets/${body.id}`)).status).toBe(404);
	});

	test('content is a 302 to the signed storage host, which refuses credentials and serves the bytes without them', async () => {
		const { body } = await upload();
		const answer = await call('GET', `/api/v2/assets/${body.id}/content`);
		expect(answer.status).toBe(302);
		const location = answer.headers.get('location')!;
		expect(location.startsWith(sim.storageUrl)).toBe(true);
		expect((await send('GET', location, auth())).status).toBe(400);
		expect(sim.counters.storageCredentialAttempts).toBe(1);
		expect((await send('GET', location)).bytes).toEqual(BYTES);
	});

	test("an upload's Idempotency-Key is single-use: reuse is 422 idempotency_key_reuse; a refused upload releases it", async () => {
		const key = { ...auth(), 'idempotency-key': 'upload-key-1' };
		expect((await upload({}, key)).status).toBe(201);
		const again = await upload({}, key);
		expect([again.status, again.body.error.code]).toEqual([422, 'idempotency_key_reuse']);
		const refusedKey = { ...auth(), 'idempotency-key': 'upload-key-2' };
		expect((await upload({ expires_in: '5' }, refusedKey)).body.error.code).toBe('invalid_request');
		expect((await upload({}, refusedKey)).status).toBe(200);
		expect(sim.v2.assets.size).toBe(2);
	});

	test('a lost upload answer (reset, or 500 upstream_error) still minted its asset, and its key stays claimed', async () => {
		for (const as of ['reset', 'upstream_error'] as const) {
			sim.faults.v2UploadLost = { count: 1, as };
			const key = { ...auth(), 'idempotency-key': `lost-${as}` };
			const before = sim.v2.assets.size;
			const lost = await upload({}, key).catch(() => undefined);
			if (as === 'reset') expect(lost).toBeUndefined();
			else expect([lost!.status, lost!.body.error.code]).toEqual([500, 'upstream_error']);
			expect(sim.v2.assets.size).toBe(before + 1);
			expect((await upload({}, key)).body.error.code).toBe('idempotency_key_reuse');
		}
	});
});

describe('jobs', () => {
	test('a submit is 201 with the job; it runs to succeeded with each output an asset of the job', async () => {
		const created = await submit({ workflow: WORKFLOW });
		expect(created.status).toBe(201);
		expect(created.body.urls.self).toBe(`${sim.baseUrl}/api/v2/jobs/${created.body.id}`);
		await finished(created.body.id);
		const read = await call('GET', `/api/v2/jobs/${created.body.id}`);
		expect(read.body).toMatchObject({ status: 'succeeded', error: null, progress: { value: 1, nodes_done: 7, nodes_total: 7 } });
		expect(read.body.logs).toBeUndefined();
		expect(read.body.outputs).toHaveLength(1);
		const [output] = read.body.outputs;
		expect(output).toMatchObject({ node_id: '9', type: 'image', content_type: 'image/png', job_id: created.body.id });
		const asset = await call('GET', `/api/v2/assets/${output.id}`);
		expect(asset.body).toMatchObject({ job_id: created.body.id, size_bytes: output.size_bytes });
		expect((await send('GET', output.url)).bytes.length).toBe(output.size_bytes);
	});

	test('a graph the engine refuses is 422 invalid_workflow with details.node_errors per node', async () => {
		const badSteps = { ...WORKFLOW, '3': { class_type: 'KSampler', inputs: { ...(WORKFLOW['3'] as any).inputs, steps: 'many' } } };
		const answer = await submit({ workflow: badSteps });
		expect(answer.status).toBe(422);
		expect(answer.body.error.code).toBe('invalid_workflow');
		expect(answer.body.error.details.node_errors['3'][0]).toMatchObject({ field: 'steps', reason: 'invalid_input_type' });
		const unknownClass = await submit({ workflow: { ...WORKFLOW, '12': { class_type: 'NoSuchNode', inputs: {} } } });
		expect(unknownClass.body.error.details.node_errors['12'][0].reason).toBe('invalid_prompt');
		expect((await submit({ nothing: true })).body.error.code).toBe('invalid_workflow');
		expect((await submit('not json')).body.error.code).toBe('invalid_request');
		expect(sim.v2.jobs.size).toBe(0);
	});

	test('a UI export is 422 workflow_format_ui; reserved fields and extra_data other than api_key_comfy_org are 422', async () => {
		const ui = await submit({ workflow: { nodes: [], links: [], version: 0.4 } });
		expect(ui.status).toBe(422);
		expect(ui.body.error.code).toBe('workflow_format_ui');
		for (const body of [
			{ workflow: WORKFLOW, webhook_url: 'https://example.com/hook' },
			{ workflow: WORKFLOW, inputs: {} },
		]) {
			const answer = await submit(body);
			expect([answer.status, answer.body.error.code]).toEqual([422, 'invalid_workflow']);
			expect(answer.body.error.message).toMatch(/reserved/);
		}
		for (const body of [
			{ workflow: WORKFLOW, extra_data: { client_id: 'x' } },
			{ workflow: WORKFLOW, extra_data: { api_key_comfy_org: 5 } },
		]) {
			const answer = await submit(body);
			expect(answer.status).toBe(422);
			expect(answer.body.error.code).toBe('invalid_request');
		}
		expect((await submit({ workflow: WORKFLOW, extra_data: { api_key_comfy_org: sim.apiKey } })).status).toBe(201);
		expect(JSON.stringify(sim.v2.exchanges)).not.toContain(sim.apiKey);
	});

	test("core/ASSET references run with the asset; an unknown one, or another account's, is 422 missing_asset", async () => {
		const mine = await upload();
		const theirs = await upload({}, other());
		const graph = (id: unknown) => ({
			'1': { class_type: 'LoadImage', inputs: { image: { __type: 'core/ASSET', info: { id } } } },
			'2': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
		});
		const ran = await submit({ workflow: graph(mine.body.id) });
		expect(ran.status).toBe(201);
		expect((await finished(ran.body.id)).status).toBe('succeeded');
		for (const id of ['no-such-asset', theirs.body.id, undefined]) {
			const answer = await submit({ workflow: graph(id) });
			expect(answer.status).toBe(422);
			expect(answer.body.error).toMatchObject({ code: 'missing_asset', details: { node_id: '1', input: 'image' } });
		}
	});

	test('402 insufficient_credits at 0 credits, 403 forbidden without a subscription, 429 queue_full with Retry-After', async () => {
		sim.accounts[0].credits = 0;
		expect((await submit({ workflow: WORKFLOW })).body.error.code).toBe('insufficient_credits');
		sim.accounts[0].credits = 10;
		sim.accounts[0].subscriptionActive = false;
		const forbidden = await submit({ workflow: WORKFLOW });
		expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'forbidden']);
		sim.accounts[0].subscriptionActive = true;
		sim.options.v2 = { ...sim.options.v2, queueLimit: 1, retryAfterSeconds: 7 };
		sim.options.nodeMs = 200;
		expect((await submit({ workflow: WORKFLOW })).status).toBe(201);
		const full = await submit({ workflow: WORKFLOW });
		expect([full.status, full.body.error.code, full.headers.get('retry-after')]).toEqual([429, 'queue_full', '7']);
		expect((await submit({ workflow: WORKFLOW }, other())).status).toBe(201);
	});

	test('deployment_not_ready is for deployments only: the cloud surface ignores notReadyForMs', async () => {
		sim.options.v2 = { ...sim.options.v2, notReadyForMs: 3_600_000 };
		expect((await submit({ workflow: WORKFLOW })).status).toBe(201);
	});

	test('job reads past rateLimitAfter in the window are 429 rate_limited with Retry-After; cancel is not limited', async () => {
		const { body } = await submit({ workflow: WORKFLOW });
		sim.options.v2 = { ...sim.options.v2, rateLimitAfter: 2, retryAfterSeconds: 30 };
		expect((await call('GET', `/api/v2/jobs/${body.id}`)).status).toBe(200);
		expect((await call('GET', `/api/v2/jobs/${body.id}/workflow`)).status).toBe(200);
		const limited = await call('GET', `/api/v2/jobs/${body.id}`);
		expect([limited.status, limited.body.error.code, limited.headers.get('retry-after')]).toEqual([429, 'rate_limited', '30']);
		expect((await call('GET', '/api/v2/jobs/unknown')).status).toBe(429);
		expect((await call('POST', `/api/v2/jobs/${body.id}/cancel`)).status).toBe(200);
	});

	test('GET .../workflow answers format api with the workflow as submitted, format save for a job from the editor, 404 for others', async () => {
		const { body } = await submit({ workflow: WORKFLOW, extra_data: { api_key_comfy_org: sim.apiKey } });
		const api = await call('GET', `/api/v2/jobs/${body.id}/workflow`);
		expect(api.body).toEqual({ format: 'api', workflow: WORKFLOW });
		const ui = { nodes: [{ id: 1, type: 'Note' }], links: [], version: 0.4 };
		sim.v2.markFromEditor(body.id, ui);
		expect((await call('GET', `/api/v2/jobs/${body.id}/workflow`)).body).toEqual({ format: 'save', workflow: ui });
		expect((await call('GET', `/api/v2/jobs/${body.id}/workflow`, undefined, other())).status).toBe(404);
	});

	test('a job failing at a node has job.error with node_id and class_type; an expiring one ends expired', async () => {
		sim.faults.v2FailNextJob = { nodeId: '8', message: 'VAE decode ran out of memory' };
		const failing = await submit({ workflow: WORKFLOW });
		const failed = await finished(failing.body.id);
		expect(failed.status).toBe('failed');
		const read = await call('GET', `/api/v2/jobs/${failing.body.id}`);
		expect(read.body.error).toMatchObject({
			code: 'node_execution_error',
			message: 'VAE decode ran out of memory',
			node_id: '8',
			class_type: 'VAEDecode',
		});
		sim.faults.v2ExpireNextJob = { afterNodes: 2 };
		const expiring = await submit({ workflow: WORKFLOW });
		expect((await finished(expiring.body.id)).status).toBe('expired');
		expect(jobOf(expiring.body.id).engine.executed).toHaveLength(2);
	});

	test('past its retention a job and its outputs are 404, and the outputs can be deleted no more than read', async () => {
		const { body } = await submit({ workflow: WORKFLOW });
		const job = await finished(body.id);
		const outputId = job.outputs[0].asset.id;
		const held = await call('DELETE', `/api/v2/assets/${outputId}`);
		expect([held.status, held.body.error.code]).toEqual([409, 'asset_in_use']);
		sim.v2.passRetention(body.id);
		for (const path of [`/api/v2/jobs/${body.id}`, `/api/v2/jobs/${body.id}/workflow`, `/api/v2/assets/${outputId}`]) {
			expect((await call('GET', path)).status).toBe(404);
		}
		expect((await call('POST', `/api/v2/jobs/${body.id}/cancel`)).status).toBe(404);
	});

	test('cancel of a queued job ends it canceled at once; cancel of a finished job returns it unchanged', async () => {
		sim.accounts[0].parallelLimit = 1;
		sim.options.nodeMs = 100;
		const running = await submit({ workflow: WORKFLOW });
		const queued = await submit({ workflow: WORKFLOW });
		expect(queued.body).toMatchObject({ status: 'queued', queue_position: 0 });
		const canceled = await call('POST', `/api/v2/jobs/${queued.body.id}/cancel`);
		expect(canceled.body.status).toBe('canceled');
		expect(jobOf(queued.body.id).engine.executed).toEqual([]);
		sim.options.nodeMs = 1;
		await finished(running.body.id);
		const again = await call('POST', `/api/v2/jobs/${running.body.id}/cancel`);
		expect(again.body.status).toBe('succeeded');
	});

	test('the submit answer lost after the job was made: a reset connection, or 500 upstream_error', async () => {
		sim.faults.v2SubmitLost = { count: 1, as: 'reset' };
		await expect(submit({ workflow: WORKFLOW })).rejects.toThrow();
		expect(sim.v2.jobs.size).toBe(1);
		sim.faults.v2SubmitLost = { count: 1, as: 'upstream_error' };
		const lost = await submit({ workflow: WORKFLOW });
		expect([lost.status, lost.body.error.code]).toEqual([500, 'upstream_error']);
		expect(sim.v2.jobs.size).toBe(2);
	});
});

describe('events', () => {
	const stream = (id: string, headers: Record<string, string> = auth()) => openStream(`${sim.baseUrl}/api/v2/jobs/${id}/events`, headers);

	test('a stream runs to the terminal status and ends; frames have no id; output events come before the end', async () => {
		sim.options.nodeMs = 30;
		const { body } = await submit({ workflow: WORKFLOW });
		const events = await stream(body.id);
		expect(events.status).toBe(200);
		expect(await events.done).toBe('end');
		const frames = events.frames();
		expect(frames[0].event).toBe('status');
		expect(frames.some((f) => f.id)).toBe(false);
		expect(new Set(frames.map((f) => f.event))).toEqual(new Set(['status', 'progress', 'preview', 'output']));
		const last = frames[frames.length - 1];
		expect([last.event, last.data.status, last.data.outputs.length]).toEqual(['status', 'succeeded', 1]);
		expect(sim.v2.openStreams()).toBe(0);
	});

	test("501 not_implemented when events are off, 404 for another account's job, 401 without a key", async () => {
		const { body } = await submit({ workflow: WORKFLOW });
		expect((await stream(body.id, other())).status).toBe(404);
		expect((await stream(body.id, {})).status).toBe(401);
		sim.options.v2 = { ...sim.options.v2, events: 'not-implemented' };
		const off = await call('GET', `/api/v2/jobs/${body.id}/events`);
		expect([off.status, off.body.error.code]).toEqual([501, 'not_implemented']);
	});

	test('past maxStreams a stream is 429 too_many_streams with Retry-After; the slot frees when a stream ends', async () => {
		sim.options.nodeMs = 200;
		sim.options.v2 = { ...sim.options.v2, maxStreams: 1, retryAfterSeconds: 4 };
		const { body } = await submit({ workflow: WORKFLOW });
		const first = await stream(body.id);
		const second = await call('GET', `/api/v2/jobs/${body.id}/events`);
		expect([second.status, second.body.error.code, second.headers.get('retry-after')]).toEqual([429, 'too_many_streams', '4']);
		expect((await stream(body.id, other())).status).toBe(404);
		first.close();
		await waitUntil(() => sim.v2.openStreams() === 0);
		const third = await stream(body.id);
		expect(third.status).toBe(200);
		third.close();
	});

	test('the drop fault cuts a stream mid-job; the job runs on and a poll sees it finish', async () => {
		sim.options.nodeMs = 30;
		const { body } = await submit({ workflow: WORKFLOW });
		sim.faults.v2DropStream = { afterEvents: 3 };
		const events = await stream(body.id);
		expect(await events.done).toBe('cut');
		expect(events.frames()).toHaveLength(3);
		await finished(body.id);
		expect((await call('GET', `/api/v2/jobs/${body.id}`)).body.status).toBe('succeeded');
	});
});
