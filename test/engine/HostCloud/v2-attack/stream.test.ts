/**
 * Outside attack on Host Cloud v2: the job's event stream. A stream that never sends a byte, one
 * that never ends and never says a terminal status, one huge `data:` line, a 200 that is not SSE,
 * and a stream about another job's state. GET /api/v2/jobs/{id} is the truth; every wait is bounded
 * by Max Wait.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { executeParameters, job, json, nodeSpec, output, QUICK, useHostileV2, wellBehaved } from './hostile-v2';

const v2 = useHostileV2();
const open: ServerResponse[] = [];
afterEach(() => {
	for (const res of open.splice(0)) res.destroy();
});

const run = (waitOptions: Record<string, unknown>) =>
	v2.harness.runNode(nodeSpec(v2, executeParameters({ waitOptions: { ...QUICK, ...waitOptions } })), [{ json: {} }]);
const reads = (id: string) => v2.api.seen.filter((r) => r.url === `/api/v2/jobs/${id}`);
const streams = (id: string) => v2.api.seen.filter((r) => r.url === `/api/v2/jobs/${id}/events`);

/** A server whose job is done from the start (GET says succeeded) but whose stream does `stream`. */
function doneJobWithStream(id: string, stream: (res: ServerResponse) => void) {
	v2.answer = (req, res) => {
		if (req.url === `/api/v2/jobs/${id}/events`) {
			open.push(res);
			return stream(res);
		}
		if (req.url === `/api/v2/jobs/${id}`) return json(res, 200, job(id, 'succeeded'));
		wellBehaved({ id })(req, res);
	};
}

describe('the event stream', () => {
	test('a stream that never sends a byte (job running forever): Max Wait ends the item, the job is cancelled', async () => {
		const id = randomUUID();
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/jobs/${id}/events`) return void open.push(res);
			if (req.url.startsWith(`/api/v2/jobs/${id}`)) return json(res, 200, job(id, req.url.endsWith('/cancel') ? 'canceling' : 'running'));
			wellBehaved({ id })(req, res);
		};
		const result = await run({ maxWaitMinutes: 0.02, onTimeout: 'cancel' });

		expect(result.status).toBe('error');
		expect(v2.api.seen.filter((r) => r.url === `/api/v2/jobs/${id}/cancel`)).toHaveLength(1);
	}, 30_000);

	// Found by the outside attack: a stream that opened and went silent held the item until Max Wait;
	// the Silence Timeout now ends it, and the job is read.
	test('a stream that sends only headers and then nothing, while the job has succeeded: after Silence Timeout the job is read and output, long before Max Wait', async () => {
		const id = randomUUID();
		doneJobWithStream(id, (res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			res.flushHeaders();
		});
		const stop = new AbortController();
		// Max Wait is 30 s; the run is stopped at 6 s: only a read after the 0.5 s silence can finish it.
		const stopper = setTimeout(() => stop.abort(), 6000);
		const result = await v2.harness.runNode(
			nodeSpec(v2, executeParameters({ waitOptions: { ...QUICK, maxWaitMinutes: 0.5, silenceSeconds: 0.5 } })),
			[{ json: {} }],
			{ signal: stop.signal },
		);
		clearTimeout(stopper);

		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ job_id: id, status: 'succeeded' });
	}, 30_000);

	// A stream that keeps talking but never says the end is believed until Max Wait; then GET's
	// answer is output (bounded; the lie costs the item its Max Wait, not a wrong answer).
	test('an endless stream of non-terminal events while the job has succeeded: at Max Wait the job is read and output', async () => {
		const id = randomUUID();
		doneJobWithStream(id, (res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			const beat = setInterval(() => {
				if (res.destroyed) return clearInterval(beat);
				res.write(`event: status\ndata: {"status":"running"}\n\n: keep-alive\n\n`);
			}, 20);
			res.on('close', () => clearInterval(beat));
		});
		const result = await run({ maxWaitMinutes: 0.05, onTimeout: 'keep' });

		expect(result.status).toBe('success');
		expect(reads(id).length).toBeGreaterThanOrEqual(1);
	}, 30_000);

	test('one huge data: line (8 MB, no newline) does not end the run: the job is read and output', async () => {
		const id = randomUUID();
		doneJobWithStream(id, (res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			res.write('event: status\ndata: ');
			const chunk = 'x'.repeat(64 * 1024);
			let sent = 0;
			const pump = () => {
				while (sent < 128 && !res.destroyed) {
					sent += 1;
					if (!res.write(chunk)) return void res.once('drain', pump);
				}
			};
			pump();
		});
		const result = await run({ maxWaitMinutes: 0.05, onTimeout: 'keep' });

		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ job_id: id, status: 'succeeded' });
	}, 30_000);

	test('a 200 whose body is not SSE (the job as JSON): the node reads the job and outputs it', async () => {
		const id = randomUUID();
		doneJobWithStream(id, (res) => json(res, 200, job(id, 'succeeded')));
		const result = await run({ maxWaitMinutes: 0.25 });

		expect(result.status).toBe('success');
		expect(streams(id).length).toBeLessThanOrEqual(3);
	}, 30_000);

	test("a stream that says failed (another job's state) while GET says succeeded: GET wins", async () => {
		const id = randomUUID();
		doneJobWithStream(id, (res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			res.end(`event: status\ndata: {"status":"failed"}\n\n`);
		});
		const result = await run({ maxWaitMinutes: 0.25 });

		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ job_id: id, status: 'succeeded' });
	}, 30_000);

	test("output events and a terminal snapshot about another job on the stream: only the job's own outputs (from GET) are output", async () => {
		const id = randomUUID();
		const stranger = randomUUID();
		doneJobWithStream(id, (res) => {
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			const theirs = output(stranger, { name: 'theirs.png', id: randomUUID() });
			res.write(`event: output\ndata: ${JSON.stringify(theirs)}\n\n`);
			res.end(`event: status\ndata: ${JSON.stringify(job(stranger, 'succeeded', { outputs: [theirs] }))}\n\n`);
		});
		const result = await run({ maxWaitMinutes: 0.25 });

		expect(result.status).toBe('success');
		expect(JSON.stringify(result.items)).not.toContain('theirs.png');
		expect(result.items[0]!.json).toMatchObject({ job_id: id, output_count: 1 });
	}, 30_000);

	test('a stream cut and reopened endlessly (each ends at once with no event): bounded by the read, not a stream per event loop turn', async () => {
		const id = randomUUID();
		let streamsOpened = 0;
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/jobs/${id}/events`) {
				streamsOpened += 1;
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				return void res.end();
			}
			if (req.url.startsWith(`/api/v2/jobs/${id}`)) return json(res, 200, job(id, 'running'));
			wellBehaved({ id })(req, res);
		};
		const result = await run({ maxWaitMinutes: 0.02, onTimeout: 'keep', pollIntervalSeconds: 0.2 });

		expect(result.status).toBe('error');
		// 1.2 s at a 0.2 s Poll Interval: a handful of streams, never hundreds.
		expect(streamsOpened).toBeLessThanOrEqual(15);
		expect(reads(id).length).toBeLessThanOrEqual(20);
	}, 30_000);
});
