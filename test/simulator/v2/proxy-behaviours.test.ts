/**
 * Behaviours a real v2 server shows that the contract states in prose, each as a case citing where
 * it comes from: the contract (test/contract/openapi-v2.yaml) and the proxy's docs and tests
 * (repository Comfy-Org/comfy-api-proxy). Every answer is checked against the contract after each
 * test (test/simulator/support/v2.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { V2Simulator } from '../../../simulator/server';
import { waitUntil } from '../../support/wait';
import { openStream, useV2Simulator, v2Client } from '../support/v2';

const WORKFLOW = JSON.parse(readFileSync(join(__dirname, '../../fixtures/txt2img-api.json'), 'utf8')) as Record<string, unknown>;
/** An output node that runs first (nodes run in the graph's order where links allow), then the text-to-image graph: its output is committed while seven nodes still run. */
const TWO_OUTPUTS = {
	'1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
	'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'early' } },
	...WORKFLOW,
};

let sim: V2Simulator;
useV2Simulator({ nodeMs: 5 }, (s) => (sim = s));
const { call, auth } = v2Client(() => sim);
const jobOf = (id: string) => sim.v2.jobs.get(id)!;

// docs/cancellation.md, "Proxy behavior": "still running → status may be `canceling` until the
// interrupt lands at a node boundary"; the contract's cancelJob: "interruption takes effect at
// node/step boundaries"; tests/test_endpoints.py, test_cancel_running_job.
test('cancel at node boundaries: a running job answers canceling; the node it was in ends (a sampler at its next step), no later node runs', async () => {
	sim.options.nodeMs = 500; // seven nodes: the cancel comes long before the last one
	const { body } = await call('POST', '/api/v2/jobs', { workflow: WORKFLOW });
	expect(body.status).toBe('running');
	const answer = await call('POST', `/api/v2/jobs/${body.id}/cancel`);
	expect(answer.body.status).toBe('canceling');
	expect(['canceling', 'canceled']).toContain((await call('POST', `/api/v2/jobs/${body.id}/cancel`)).body.status);
	await waitUntil(() => jobOf(body.id).status === 'canceled');
	// Where the cancel found the job (the answer's progress) says where it stops, however late it came.
	const at: string = answer.body.progress.current_node;
	const { order, executed, graph } = jobOf(body.id).engine;
	const finishesItsNode = graph[at].class_type !== 'KSampler';
	expect(executed).toEqual(order.slice(0, order.indexOf(at) + (finishesItsNode ? 1 : 0)));
	const read = await call('GET', `/api/v2/jobs/${body.id}`);
	expect(read.body).toMatchObject({ status: 'canceled', outputs: [], error: null });
	expect((await call('POST', `/api/v2/jobs/${body.id}/cancel`)).body.status).toBe('canceled');
});

// The contract's getJob: "`outputs` populates incrementally while the job runs"; its `output`
// event: "Emitted the moment each output asset is committed"; tests/test_endpoints.py,
// test_sse_stream_delivers_output_event_and_no_log: the output event comes before the terminal status.
test('outputs committed before the terminal status: a poll sees an output while the job runs, the stream before its end', async () => {
	sim.options.nodeMs = 100;
	const { body } = await call('POST', '/api/v2/jobs', { workflow: TWO_OUTPUTS });
	const events = await openStream(`${sim.baseUrl}/api/v2/jobs/${body.id}/events`, auth());
	await waitUntil(() => jobOf(body.id).outputs.length === 1);
	const midway = await call('GET', `/api/v2/jobs/${body.id}`);
	expect(midway.body.status).toBe('running');
	expect(midway.body.outputs.map((o: { node_id: string }) => o.node_id)).toEqual(['2']);
	expect(await events.done).toBe('end');
	const names = events.frames().map((f) => f.event);
	const terminal = names.lastIndexOf('status');
	expect(terminal).toBe(names.length - 1);
	expect(names.filter((n) => n === 'output')).toHaveLength(2);
	expect(names.lastIndexOf('output')).toBeLessThan(terminal);
	expect(events.frames()[terminal].data.outputs).toHaveLength(2);
});

// The contract's getJobEvents: "On connect the client receives the current snapshot (a `status`
// event, the latest `progress`, and the most recent `preview` if any), then future updates";
// README.md, "Live events (SSE)".
test("the stream's snapshot on connect: status, latest progress and latest preview first; a finished job's stream is its terminal status", async () => {
	sim.options.nodeMs = 300;
	const { body } = await call('POST', '/api/v2/jobs', { workflow: WORKFLOW });
	await waitUntil(() => jobOf(body.id).preview !== null);
	const events = await openStream(`${sim.baseUrl}/api/v2/jobs/${body.id}/events`, auth());
	await waitUntil(() => events.frames().length >= 3);
	// The job still runs (the sampler is followed by two nodes): the snapshot is status, progress, preview.
	const [status, progress, preview] = events.frames();
	expect([status.event, status.data.status]).toEqual(['status', 'running']);
	expect(progress.event).toBe('progress');
	expect(progress.data).toMatchObject({ nodes_total: 7, value: expect.any(Number) });
	expect(preview.event).toBe('preview');
	expect(preview.data).toMatchObject({ node_id: '3', content_type: expect.stringMatching(/^image\//) });
	expect(await events.done).toBe('end');
	const after = await openStream(`${sim.baseUrl}/api/v2/jobs/${body.id}/events`, auth());
	expect(await after.done).toBe('end');
	// The stream ends after the terminal status, so a finished job's snapshot is that one event (it carries the whole job).
	expect(after.frames().map((f) => [f.event, f.data.status, f.data.outputs?.length])).toEqual([['status', 'succeeded', 1]]);
});

// The contract's postJobs: the key "is released if that submission definitively fails without
// creating a job (a validation error, or an upstream reject such as out-of-credits or
// queue-full)... If a submission's outcome is unknown... the key stays claimed"; docs/
// topology-and-deployment.md, "Persistence": reusing a key is rejected.
test('key release after a definite failure: a refused submit frees its key; a made job, even with its answer lost, keeps it', async () => {
	const withKey = (key: string) => ({ ...auth(), 'idempotency-key': key });
	expect((await call('POST', '/api/v2/jobs', { workflow: { nodes: [], links: [] } }, withKey('k1'))).status).toBe(422);
	sim.accounts[0].credits = 0;
	expect((await call('POST', '/api/v2/jobs', { workflow: WORKFLOW }, withKey('k1'))).status).toBe(402);
	sim.accounts[0].credits = 10;
	sim.options.v2 = { ...sim.options.v2, queueLimit: 0 };
	expect((await call('POST', '/api/v2/jobs', { workflow: WORKFLOW }, withKey('k1'))).status).toBe(429);
	sim.options.v2 = { ...sim.options.v2, queueLimit: undefined };
	expect((await call('POST', '/api/v2/jobs', { workflow: WORKFLOW }, withKey('k1'))).status).toBe(201);
	const reused = await call('POST', '/api/v2/jobs', { workflow: { ...WORKFLOW } }, withKey('k1'));
	expect([reused.status, reused.body.error.code]).toEqual([422, 'idempotency_key_reuse']);
	sim.faults.v2SubmitLost = { count: 1, as: 'upstream_error' };
	expect((await call('POST', '/api/v2/jobs', { workflow: WORKFLOW }, withKey('k2'))).status).toBe(500);
	expect((await call('POST', '/api/v2/jobs', { workflow: WORKFLOW }, withKey('k2'))).body.error.code).toBe('idempotency_key_reuse');
	expect(sim.v2.jobs.size).toBe(2);
	expect((await call('POST', '/api/v2/jobs', { workflow: WORKFLOW }, { ...auth(), 'idempotency-key': 'k1' })).status).toBe(422);
});
