/**
 * Outside attack on Host Cloud v2 through its inputs: an expression saved in API Generation (the
 * panel forbids one, a workflow file need not), a UI-format workflow on v2, huge Extra Data, and
 * Stop with several items running: refused by name before anything is sent, or run exactly as asked;
 * Stop cancels exactly the node's own jobs.
 */
import { randomUUID } from 'node:crypto';

import { API_KEY, envelope, executeParameters, job, json, nodeSpec, useHostileV2, visible } from './hostile-v2';
import { uiTxt2img } from '../../../support/ui-workflows';

const v2 = useHostileV2();

const sent = () => v2.api.seen.length;

describe('inputs', () => {
	test.each([
		['an expression naming v1 (with only a v2 credential)', '={{ "v1" }}'],
		['an expression naming a generation that does not exist', '={{ "v3" }}'],
		['an expression reading the item', '={{ $json.generation }}'],
	])('API Generation holding %s: refused by name before anything is sent', async (_name, value) => {
		const result = await v2.harness.runNode(
			{ ...nodeSpec(v2, executeParameters()), parameters: { ...executeParameters(), apiGeneration: value } as never },
			[{ json: { generation: 'v9' } }],
		);

		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/API Generation must be "v1" or "v2"/);
		expect(sent()).toBe(0);
		expect(visible(result)).not.toContain(API_KEY);
	});

	test('a UI-format workflow on v2 is refused by name before anything is sent', async () => {
		const result = await v2.harness.runNode(nodeSpec(v2, executeParameters({ workflow: JSON.stringify(uiTxt2img()) })), [{ json: {} }]);

		expect(result.status).toBe('error');
		expect(sent()).toBe(0);
		expect(result.error('Node')?.message).toMatch(/UI format/i);
	});

	test('huge Extra Data (2 MB) on v2 is refused by name before anything is sent', async () => {
		const extraData = JSON.stringify({ blob: 'x'.repeat(2_000_000) });
		const result = await v2.harness.runNode(nodeSpec(v2, executeParameters({ additionalFields: { extraData } })), [{ json: {} }]);

		expect(result.status).toBe('error');
		expect(sent()).toBe(0);
		expect(result.error('Node')?.message).toMatch(/Extra Data/);
	});

	test('a huge workflow (5 MB) is sent once or refused in words; never twice', async () => {
		const workflow = { '1': { class_type: 'Note', inputs: { text: 'x'.repeat(5_000_000) } } };
		v2.answer = (_req, res) => envelope(res, 413, 'payload_too_large');
		const result = await v2.harness.runNode(nodeSpec(v2, executeParameters({ workflow: JSON.stringify(workflow) })), [{ json: {} }]);

		expect(result.status).toBe('error');
		expect(v2.api.seen.filter((r) => r.url === '/api/v2/jobs').length).toBeLessThanOrEqual(2);
		expect(new Set(v2.api.seen.map((r) => r.headers['idempotency-key'])).size).toBe(1);
	});

	test('Stop with three items running cancels exactly their three jobs, and no other', async () => {
		const made: string[] = [];
		v2.answer = (req, res) => {
			if (req.method === 'POST' && req.url === '/api/v2/jobs') {
				const id = randomUUID();
				made.push(id);
				return json(res, 201, job(id, 'queued'));
			}
			const m = /^\/api\/v2\/jobs\/([^/]+)(\/events|\/cancel)?$/.exec(req.url);
			if (m?.[2] === '/events') return envelope(res, 501, 'not_implemented');
			if (m) return json(res, 200, job(m[1]!, m[2] === '/cancel' ? 'canceling' : 'running'));
			envelope(res, 404, 'not_found');
		};
		const stop = new AbortController();
		const running = v2.harness.runNode(
			nodeSpec(
				v2,
				executeParameters({
					waitOptions: { pollIntervalSeconds: 0.2, maxWaitMinutes: 1, useWebSocket: true },
					additionalFields: { maxConcurrentJobs: 3 },
				}),
			),
			[{ json: {} }, { json: {} }, { json: {} }],
			{ signal: stop.signal },
		);
		// Stop once the node has read each of its three jobs (it knows their ids): a job made whose answer
		// had not yet reached the node when Stop came (a busy machine) cannot be the node's to cancel.
		const read = (id: string) => v2.api.seen.some((r) => r.method === 'GET' && r.url.startsWith(`/api/v2/jobs/${id}`));
		while (made.length < 3 || !made.every(read)) await new Promise((r) => setTimeout(r, 50));
		stop.abort();
		await running;
		// The cancels go out as the run ends; give them a moment to arrive.
		const cancels = () => v2.api.seen.filter((r) => r.url.endsWith('/cancel'));
		for (let i = 0; i < 500 && cancels().length < 3; i++) await new Promise((r) => setTimeout(r, 20));
		await new Promise((r) => setTimeout(r, 200));

		const cancelled = v2.api.seen.filter((r) => r.url.endsWith('/cancel')).map((r) => r.url.split('/')[4]);
		expect(cancelled.sort()).toEqual([...made].sort());
	}, 30_000);
});
