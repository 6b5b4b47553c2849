/**
 * A hostile service (found by an outside review, kept as regression tests): a job record that is another job's, and
 * secrets echoed where the trigger reads them (items, log lines).
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';

import { msg, sleep, hostileCloudForEachTest } from '../../../support/hostile-cloud-server';
import { waitUntil } from '../../../support/wait';

jest.setTimeout(60_000);

const suite = hostileCloudForEachTest();

test("a failed job's item never carries the failure words of a record that names another job", async () => {
	suite.cloud.status = (id) => ({ code: 200, body: { status: id === 'victim' ? 'failed' : 'in_progress' } });
	// The record answered for "victim" is someone else's (a caching proxy, a broken service).
	suite.cloud.record = () => ({
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
	const trigger = suite.listening({ events: 'finished' });
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 30_000);
	suite.cloud.broadcast(msg.start('victim'));
	await sleep(5_500);
	// A gap: the end message is lost; the trigger looks the job up.
	suite.cloud.dropSockets();
	const [item] = await trigger.flows(1, 15_000);
	expect(item!.json.prompt_id).toBe('victim');
	expect(JSON.stringify(item!.json)).not.toContain("someone else's private job");
});

test("a succeeded job's item never carries the outputs of a record that names another job", async () => {
	suite.cloud.status = (id) => ({ code: 200, body: { status: id === 'victim' ? 'completed' : 'in_progress' } });
	// The record answered for "victim" is someone else's, with that job's files.
	suite.cloud.record = () => ({
		code: 200,
		body: {
			id: 'someone-elses-job',
			status: 'completed',
			outputs: { '9': { images: [{ filename: 'someone-elses-private.png', subfolder: '', type: 'output' }] } },
		},
	});
	const trigger = suite.listening();
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 30_000);
	suite.cloud.broadcast(msg.start('victim'));
	await sleep(5_500);
	// A gap: the end message is lost; the trigger looks the job up, and its outputs can only come from the record.
	suite.cloud.dropSockets();
	const [item] = await trigger.flows(1, 15_000);
	expect(item!.json.prompt_id).toBe('victim');
	expect(suite.cloud.seen.filter((line) => line.startsWith('GET /api/jobs/victim'))).not.toEqual([]);
	expect(JSON.stringify(item!.json)).not.toContain('someone-elses-private');
});

test('held: prototype-named ids and node ids, and the API key echoed in spellings, never reach an item', async () => {
	const trigger = suite.listening({ events: 'finished' });
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 30_000);
	for (const id of ['__proto__', 'constructor', 'toString']) {
		suite.cloud.broadcast(msg.start(id));
		suite.cloud.broadcast(msg.success(id));
	}
	const key = suite.cloud.apiKey;
	suite.cloud.broadcast(msg.start('echo'));
	suite.cloud.broadcast(
		msg.executed('echo', '__proto__', {
			images: [{ filename: `${encodeURIComponent(key)}.png`, subfolder: Buffer.from(key).toString('base64'), type: 'output' }],
		}),
	);
	suite.cloud.broadcast(
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

test('held: the API key echoed in a redirect address and in an error answer never reaches a log line', async () => {
	const logged: string[] = [];
	// Every level n8n's logger writes goes through its one `log` method (the levels below its setting write nothing).
	const spy = jest.spyOn(Container.get(Logger) as unknown as { log: (...args: unknown[]) => void }, 'log').mockImplementation((...args) => {
		logged.push(JSON.stringify(args));
	});
	try {
		const key = suite.cloud.apiKey;
		let queueReads = 0;
		suite.cloud.routes.push((_req, res, url) => {
			if (url.pathname !== '/api/queue') return false;
			// The first read is sent away to an address whose host name is the key, with the key in a header
			// too; the next ones are refused with the key in the answer's words.
			if (queueReads++ === 0) res.writeHead(302, { Location: `http://${key}.example/queue`, 'X-Echo': key });
			else res.writeHead(404, { 'Content-Type': 'application/json', 'X-Echo': key });
			res.end(JSON.stringify({ error: 'not_found', message: `no queue for key ${key}` }));
			return true;
		});
		const trigger = suite.listening();
		await trigger.activate();
		await waitUntil(() => suite.cloud.sockets.size > 0, 30_000);
		// A new job heard: its queue read is refused, in words that echo the key.
		suite.cloud.broadcast(msg.start('job-heard'));
		await waitUntil(() => queueReads >= 2 && logged.length >= 2, 10_000);
		expect(logged.some((line) => line.includes('redirect (HTTP 302) to http://***.example'))).toBe(true);
		expect(logged.some((line) => line.includes('no queue for key ***'))).toBe(true);
		expect(logged.filter((line) => line.includes(key) || line.includes(encodeURIComponent(key)))).toEqual([]);
	} finally {
		spy.mockRestore();
	}
});
