/**
 * Attack: Queue → Cancel Jobs (as a node, on the cloud) given a cancel answer that is well formed and
 * wrong about which jobs it cancelled. The spec shows no body for POST /api/queue; the simulator
 * answers `{deleted: [ids]}`, and the node reports from it. A proxy or cache in front of the service
 * that answers for another request (or a service that lists every job it ever deleted) must not make
 * the item say that jobs it never asked about were cancelled, nor grow past what was asked.
 */
import axios from 'axios';

import { cloudBehindFaultProxy } from '../../support/cloud-behind-proxy';
import { txt2img } from '../../support/cloud';

const { cloud, node, proxy } = cloudBehindFaultProxy('cloud');

/** A job submitted straight to the simulator (another workflow, the editor), still running. */
async function submitElsewhere(seed: number): Promise<string> {
	const prompt = txt2img();
	prompt['3']!.inputs.seed = seed;
	const answer = await axios.post(`${cloud.sim.baseUrl}/api/prompt`, { prompt }, { headers: cloud.headers });
	return answer.data.prompt_id as string;
}

const isCancel = (exchange: { method: string; path: string }) => exchange.method === 'POST' && exchange.path === '/api/queue';

test('Cancel Jobs reports as cancelled only jobs it was asked to cancel, whatever the cancel answer lists', async () => {
	cloud.sim.options.nodeMs = 5000;
	const mine = await submitElsewhere(1);
	const someoneElses = await submitElsewhere(2);
	const invented = Array.from({ length: 5000 }, (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`);
	// The answer is about another cancel: it names a job of someone else's and thousands never asked about.
	proxy().hook = (exchange) =>
		isCancel(exchange) ? { rewrite: () => JSON.stringify({ deleted: [someoneElses, ...invented] }) } : undefined;

	const result = await cloud.harness.runNode(node({ resource: 'queue', operation: 'cancelJobs', promptIds: mine }));

	expect(result.status).toBe('success');
	const json = result.items[0]!.json as { requested: string[]; cancelled?: string[]; not_cancelled?: unknown[] };
	expect(json.requested).toEqual([mine]);
	// Only the one job asked about was named in the request the service got.
	expect(cloud.sim.requestsTo('POST', '/api/queue').map((request) => JSON.parse(request.body).delete)).toEqual([[mine]]);
	// What the item says was cancelled is within what was asked: never someone else's job, never 5000 ids.
	for (const id of json.cancelled ?? []) expect(json.requested).toContain(id);
	expect(JSON.stringify(json)).not.toContain(someoneElses);
	expect((json.cancelled ?? []).length).toBeLessThanOrEqual(1);
}, 30_000);

test('Cancel Jobs does not pass on entries of the cancel answer that are not prompt_ids', async () => {
	cloud.sim.options.nodeMs = 5000;
	const mine = await submitElsewhere(3);
	proxy().hook = (exchange) =>
		isCancel(exchange) ? { rewrite: () => JSON.stringify({ deleted: [mine, { __html: '<script>x</script>' }, 42, null] }) } : undefined;

	const result = await cloud.harness.runNode(node({ resource: 'queue', operation: 'cancelJobs', promptIds: mine }));

	const json = result.items[0]!.json as { cancelled?: unknown[] };
	expect(json.cancelled).toEqual([mine]);
}, 30_000);
