/**
 * A hostile service (found by an outside review, kept as regression tests): a job record that is another job's, and what runs after close().
 */
import { ListeningTrigger } from '../helpers/listening-trigger';
import { msg, sleep, startHostileCloud, type HostileCloud } from '../helpers/hostile-cloud-server';
import { waitUntil } from '../helpers/wait';

jest.setTimeout(60_000);

let cloud: HostileCloud;
const triggers: ListeningTrigger[] = [];
beforeEach(async () => {
	cloud = await startHostileCloud();
});
afterEach(async () => {
	for (const trigger of triggers.splice(0)) await trigger.close();
	await cloud.close();
});

test("a failed job's item never carries the failure words of a record that names another job", async () => {
	cloud.status = (id) => ({ code: 200, body: { status: id === 'victim' ? 'failed' : 'in_progress' } });
	// The record answered for "victim" is someone else's (a caching proxy, a broken service).
	cloud.record = () => ({
		code: 200,
		body: {
			id: 'someone-elses-job',
			status: 'failed',
			outputs: {},
			execution_error: {
				exception_type: 'ValueError',
				exception_message: "prompt of someone else's private job",
				node_id: '7',
				node_type: 'CLIPTextEncode',
			},
		},
	});
	const trigger = new ListeningTrigger(cloud.harness, cloud.credential, { downloadFiles: false, events: 'finished' });
	triggers.push(trigger);
	await trigger.activate();
	await waitUntil(() => cloud.sockets.size > 0, 5000);
	cloud.broadcast(msg.start('victim'));
	await sleep(5_500);
	// A gap: the end message is lost; the trigger looks the job up.
	cloud.dropSockets();
	const [item] = await trigger.flows(1, 15_000);
	expect(item!.json.prompt_id).toBe('victim');
	expect(JSON.stringify(item!.json)).not.toContain("someone else's private job");
});

test('held: prototype-named ids and node ids, and the API key echoed in spellings, never reach an item', async () => {
	const trigger = new ListeningTrigger(cloud.harness, cloud.credential, { downloadFiles: false, events: 'finished' });
	triggers.push(trigger);
	await trigger.activate();
	await waitUntil(() => cloud.sockets.size > 0, 5000);
	for (const id of ['__proto__', 'constructor', 'toString']) {
		cloud.broadcast(msg.start(id));
		cloud.broadcast(msg.success(id));
	}
	const key = cloud.apiKey;
	cloud.broadcast(msg.start('echo'));
	cloud.broadcast(
		msg.executed('echo', '__proto__', {
			images: [{ filename: `${encodeURIComponent(key)}.png`, subfolder: Buffer.from(key).toString('base64'), type: 'output' }],
		}),
	);
	cloud.broadcast(
		msg.error('echo', {
			exception_type: 'E',
			exception_message: `key=${key} ${'z'.repeat(2 * 2 ** 20)}`,
			node_id: 'constructor',
			node_type: key,
		}),
	);
	await waitUntil(() => trigger.items.some((one) => one.json.prompt_id === 'echo'), 15_000);
	const item = trigger.items.find((one) => one.json.prompt_id === 'echo');
	// __proto__ and constructor are refused as ids (RESERVED_NAMES); toString is an ordinary id: one flow.
	expect(trigger.items.map((one) => one.json.prompt_id).sort()).toEqual(['echo', 'toString']);
	const text = JSON.stringify(item);
	expect(text).not.toContain(key);
	expect(text).not.toContain(Buffer.from(key).toString('base64').slice(0, 20));
	expect(text.length).toBeLessThan(64 * 1024);
	expect(trigger.errors).toEqual([]);
});
