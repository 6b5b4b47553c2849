/**
 * Attack: Queue → Get (as a node) against a queue whose entries are objects rather than upstream's
 * arrays (a proxy or a compatible server that names the fields). The docs promise that Queue → Get
 * leaves out each entry's `extra_data`, where a server shows the platform key of whoever submitted
 * the job: another client's key is no secret of this credential, so redaction cannot catch it.
 */
import { cloudBehindFaultProxy } from '../../support/cloud-behind-proxy';

const { cloud, node, proxy } = cloudBehindFaultProxy('self-hosted');

const OTHER_CLIENTS_KEY = 'platform-key-of-another-client-5b1f0c';

test('Queue → Get leaves out extra_data (another client’s platform key) of entries shaped as objects', async () => {
	const entry = (number: number, promptId: string) => ({
		number,
		prompt_id: promptId,
		prompt: { '1': { class_type: 'SaveImage', inputs: {} } },
		extra_data: { api_key_comfy_org: OTHER_CLIENTS_KEY, client_id: 'someone' },
		outputs_to_execute: ['1'],
	});
	proxy().hook = (exchange) =>
		exchange.method === 'GET' && exchange.path === '/api/queue'
			? { rewrite: () => JSON.stringify({ queue_running: [entry(1, 'job-a')], queue_pending: [entry(2, 'job-b')] }) }
			: undefined;

	const result = await cloud.harness.runNode(node({ resource: 'queue', operation: 'get' }));

	expect(result.status).toBe('success');
	const json = result.items[0]!.json as { running: Array<Record<string, unknown>>; pending: Array<Record<string, unknown>> };
	expect(json.running.map((job) => job.prompt_id)).toEqual(['job-a']);
	expect(JSON.stringify(result.items)).not.toContain(OTHER_CLIENTS_KEY);
	expect(JSON.stringify(result.items)).not.toContain('extra_data');
}, 30_000);
