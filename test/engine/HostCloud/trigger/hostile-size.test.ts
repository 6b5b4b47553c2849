/**
 * A hostile service (found by an outside review, kept as regression tests): what a hostile service, or a job submitter on a shared account,
 * can make the cloud trigger hold in memory and put in an item. What the trigger keeps of the jobs it follows is counted in bytes
 * (every text it holds of them, two bytes a character), never judged by the heap.
 */

import { HeardJobs, MAX_KEPT_BYTES } from '../../../../nodes/HostCloud/helpers/finished-jobs/heard-jobs';
import { harnessInstanceId } from '../../../support/engine';
import { msg, sleep, hostileCloudForEachTest } from '../../../support/hostile-cloud-server';
import { waitUntil } from '../../../support/wait';

jest.setTimeout(120_000);

const suite = hostileCloudForEachTest();
const listening = (parameters?: Record<string, unknown>) => suite.listening(parameters);

test('a job that sends many large executed outputs does not grow the trigger without bound (n8n main process): of 120 MiB of text outputs it keeps no byte', async () => {
	// The store of the jobs the trigger follows, found as it is filled: counted in bytes, never judged by the heap.
	const adds = jest.spyOn(HeardJobs.prototype, 'add');
	const trigger = listening();
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 30_000);
	suite.cloud.broadcast(msg.start('hog'));
	// 120 `executed` messages of 1 MiB each (a text output a ShowText-like node prints), well under
	// the 16 MiB message bound and the 1000 messages kept per job; the job keeps running.
	const big = 'x'.repeat(2 ** 20);
	for (let index = 0; index < 120; index++) {
		suite.cloud.broadcast(msg.executed('hog', '9', { text: [`${index}${big}`] }));
		if (index % 10 === 9) await sleep(50);
	}
	// A job started after them: once the trigger holds it, it has read all 120 (one socket keeps the
	// order). Waited for, not slept: a busy machine reads them later (up to 60 s, a hang guard).
	suite.cloud.broadcast(msg.start('after'));
	const store = await waitUntil(() => (adds.mock.contexts as HeardJobs[]).find((heard) => heard.has('after')), 60_000);
	adds.mockRestore();
	// A trigger keeps, of a job, only what its item can hold (file references): a text output is none.
	const hog = store.get('hog');
	expect(hog).toBeDefined();
	expect(textBytesIn(hog!.outputs)).toBeLessThan(64 * 1024);
	expect(store.keptBytes).toBeLessThan(1024 * 1024);
});

/** Every text a value holds (its strings and keys, at any depth), in bytes: two a character. */
function textBytesIn(value: unknown): number {
	if (typeof value === 'string') return 2 * value.length;
	if (Array.isArray(value)) return value.reduce((sum: number, entry) => sum + textBytesIn(entry), 0);
	if (value === null || typeof value !== 'object') return 0;
	return Object.entries(value).reduce((sum, [key, entry]) => sum + 2 * key.length + textBytesIn(entry), 0);
}

test('jobs whose tags and node types are huge: what the trigger keeps of them, counted in bytes, stays within its bound', async () => {
	// The store of the jobs the trigger follows, found as it is filled.
	const adds = jest.spyOn(HeardJobs.prototype, 'add');
	// 24 running jobs, each with a graph of 2000 nodes whose ids and class are 256 characters (what a client of the account may
	// submit), and a tag of this n8n with 256 KiB more: 1.3 Mi characters of each job the filters could use, 60 MiB in all.
	const type = 'SaveImage'.padEnd(256, 'x');
	const graph = Object.fromEntries(Array.from({ length: 2000 }, (_, n) => [`${n}-`.padEnd(256, 'n'), { class_type: type, inputs: {} }]));
	const tag = {
		n8n: { workflow_id: 'wf-1', execution_id: '7', node_name: 'Node', instance_id: harnessInstanceId(), note: 'x'.repeat(256 * 1024) },
	};
	const ids = Array.from({ length: 24 }, (_, n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`);
	const queue = JSON.stringify({ queue_running: ids.map((id, n) => [n, id, graph, tag, ['1-']]), queue_pending: [] });
	suite.cloud.queue = () => ({ code: 200, body: queue });
	const trigger = listening({ includeOwnJobs: true, outputNodes: type, events: 'finished' });
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 30_000);

	const store = adds.mock.contexts[0] as HeardJobs;
	adds.mockRestore();
	const jobs = [...store.keys()].map((id) => [id, store.get(id)!] as const);
	const counted = jobs.reduce((sum, [id, job]) => sum + 256 + 2 * id.length + textBytesIn(job.facts) + textBytesIn(job.outputs), 0);
	expect(counted).toBeLessThanOrEqual(MAX_KEPT_BYTES);
	expect(store.keptBytes).toBe(counted);
	// Every job is followed; the first heard keep what the filters use, the others are judged as jobs never seen in the queue.
	expect(jobs.map(([id]) => id)).toEqual(ids);
	const withFacts = jobs.filter(([, job]) => job.facts.startedBy !== undefined).map(([id]) => id);
	expect(withFacts).toEqual(ids.slice(0, withFacts.length));
	expect(withFacts.length).toBeGreaterThan(10);

	// The oldest fails: its graph holds the node type the trigger asks for, and its tag says who started it.
	suite.cloud.broadcast(msg.error(ids[0]!, { exception_type: 'OOMError', exception_message: 'out of memory', node_id: '1-' }));
	const [item] = await trigger.flows(1, 30_000);
	expect(item!.json).toMatchObject({
		prompt_id: ids[0],
		status: 'failed',
		started_by: { workflow_id: 'wf-1', execution_id: '7', node_name: 'Node' },
	});
	expect(JSON.stringify(item!.json).length).toBeLessThan(10_000);
});
