/**
 * Outside attack on Host Cloud v2: answers about another job than the one the node asked for
 * (another id, another job's or account's outputs), a job id that is empty or a path, the stream
 * saying succeeded while the job (GET, the truth) is still running, and a success with no outputs.
 */
import { randomUUID } from 'node:crypto';

import { envelope, executeParameters, job, json, nodeSpec, output, QUICK, useHostileV2, visible, wellBehaved } from './hostile-v2';

const v2 = useHostileV2();

const submits = () => v2.api.seen.filter((r) => r.method === 'POST' && r.url === '/api/v2/jobs');
const run = (more: Record<string, unknown> = {}) => v2.harness.runNode(nodeSpec(v2, executeParameters(more)), [{ json: {} }]);

describe('answers about another job', () => {
	// Found by the outside attack: an output whose `job_id` named another job (another account's asset)
	// was passed on as this job's, its bytes too. Each output's `job_id` is now checked with the job's `id`.
	test('a succeeded job whose output belongs to another job (job_id of another, another account) fails the item, never passes the output on', async () => {
		const id = randomUUID();
		const stranger = randomUUID();
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/jobs/${id}`)
				return json(res, 200, job(id, 'succeeded', { outputs: [output(stranger, { name: 'someone-elses.png' })] }));
			wellBehaved({ id })(req, res);
		};
		const result = await run();

		expect(result.status).toBe('error');
		expect(visible(result)).not.toContain('someone-elses.png');
		expect(submits()).toHaveLength(1);
	});

	test('a read answering another job id fails the item: one submit, no data', async () => {
		const id = randomUUID();
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/jobs/${id}`) return json(res, 200, job(randomUUID(), 'succeeded'));
			wellBehaved({ id })(req, res);
		};
		const result = await run();

		expect(result.status).toBe('error');
		expect(submits()).toHaveLength(1);
	});

	test.each([
		['empty', ''],
		['a path', '../assets/x'],
	])(
		'a 201 whose job id is %s fails the item without a second submit, and the node reads nothing outside the job',
		async (_name, badId) => {
			v2.answer = (req, res) => {
				if (req.method === 'POST' && req.url === '/api/v2/jobs') return json(res, 201, job(badId, 'queued'));
				envelope(res, 404, 'not_found');
			};
			const result = await run();

			expect(result.status).toBe('error');
			expect(submits()).toHaveLength(1);
			// Nothing was read after the submit: the id is refused, not followed.
			expect(v2.api.seen.filter((r) => r.url !== '/api/v2/jobs')).toEqual([]);
			// The message says the id cannot go into a path (it does not say the server answered it).
			expect(result.error('Node')?.message).toMatch(/id/i);
		},
	);

	test('a 201 whose job id carries a query is read only as that one job, percent-encoded under /api/v2/jobs/', async () => {
		v2.answer = (req, res) => {
			if (req.method === 'POST' && req.url === '/api/v2/jobs') return json(res, 201, job('x?y=1', 'queued'));
			envelope(res, 404, 'not_found');
		};
		const result = await run();

		expect(result.status).toBe('error');
		expect(submits()).toHaveLength(1);
		for (const r of v2.api.seen.filter((r) => r.url !== '/api/v2/jobs')) expect(r.url).toMatch(/^\/api\/v2\/jobs\/x%3Fy%3D1(\/events)?$/);
	});
});

describe('the stream and the truth', () => {
	test('the stream says succeeded while GET says running: the node keeps to GET and outputs the job only once GET says succeeded', async () => {
		const id = randomUUID();
		let reads = 0;
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/jobs/${id}/events`) {
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				return void res.end(`event: status\ndata: {"status":"succeeded"}\n\n`);
			}
			if (req.url === `/api/v2/jobs/${id}`) {
				reads += 1;
				return json(res, 200, job(id, reads < 3 ? 'running' : 'succeeded'));
			}
			wellBehaved({ id })(req, res);
		};
		const result = await run({ waitOptions: { ...QUICK, maxWaitMinutes: 0.25 } });

		expect(result.status).toBe('success');
		expect(reads).toBeGreaterThanOrEqual(3);
		expect(result.items[0]!.json).toMatchObject({ job_id: id, status: 'succeeded' });
	}, 30_000);

	test('the stream says succeeded and GET says running forever: Max Wait ends the item; no success with no outputs', async () => {
		const id = randomUUID();
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/jobs/${id}/events`) {
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				return void res.end(`event: status\ndata: {"status":"succeeded"}\n\n`);
			}
			if (req.url === `/api/v2/jobs/${id}`) return json(res, 200, job(id, 'running'));
			wellBehaved({ id })(req, res);
		};
		const result = await run({ waitOptions: { ...QUICK, maxWaitMinutes: 0.02, onTimeout: 'keep' } });

		expect(result.status).toBe('error');
		expect(result.items).toEqual([]);
	}, 30_000);

	test('a status going backwards (succeeded, then running) never yields two different answers: the first terminal read is what is output', async () => {
		const id = randomUUID();
		let reads = 0;
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/jobs/${id}`) {
				reads += 1;
				return json(res, 200, job(id, reads === 1 ? 'succeeded' : 'running'));
			}
			wellBehaved({ id })(req, res);
		};
		const result = await run();

		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.json).toMatchObject({ job_id: id, status: 'succeeded' });
	});

	test('a succeeded job with no outputs: what the user sees', async () => {
		const id = randomUUID();
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/jobs/${id}`) return json(res, 200, job(id, 'succeeded', { outputs: [] }));
			wellBehaved({ id })(req, res);
		};
		const result = await run({ downloadFiles: true });

		// The contract allows a graph with no output node; the item says so (output_count 0), it does not invent one.
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ job_id: id, status: 'succeeded', output_count: 0 });
		expect(result.items[0]!.binary ?? {}).toEqual({});
	});
});
