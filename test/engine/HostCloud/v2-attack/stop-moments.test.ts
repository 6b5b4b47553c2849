/**
 * Outside attack on n8n's Stop during a multi-item Execute on v2 (docs/host-cloud.md, "Jobs on v2":
 * "n8n's Stop cancels the jobs this run of Execute submitted; no other job is touched"). A scripted
 * server holds one kind of request (the submit, the job's read, the stream, the download) so that
 * Stop lands while every item is inside it; with Max Concurrent Jobs unset, 3 and 1. Every job a
 * submit made, and not ended, must get its own POST /api/v2/jobs/{id}/cancel, once; no other id.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { envelope, executeParameters, job, json, nodeSpec, PNG, useHostileV2 } from './hostile-v2';
import type { SeenRequest } from '../../../support/loopback-server';

const v2 = useHostileV2();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Moment = 'submit' | 'read' | 'stream' | 'download';

/** The server: jobs made on receipt of a submit; the moment's requests answered only after `holdMs`. */
function scripted(moment: Moment, holdMs: number) {
	const made: string[] = [];
	const inside = { count: 0 };
	const held = (res: ServerResponse, answer: () => void) => {
		inside.count++;
		setTimeout(() => (res.destroyed ? undefined : answer()), holdMs);
	};
	const status = () => (moment === 'download' ? 'succeeded' : 'running');
	v2.answer = (req: SeenRequest, res: ServerResponse) => {
		if (req.method === 'POST' && req.url === '/api/v2/jobs') {
			const id = randomUUID();
			made.push(id);
			const answer = () => json(res, 201, job(id, 'queued'));
			return moment === 'submit' ? held(res, answer) : answer();
		}
		const m = /^\/api\/v2\/jobs\/([^/]+)(\/events|\/cancel)?$/.exec(req.url);
		if (m?.[2] === '/cancel') return json(res, 200, job(m[1]!, 'canceling'));
		if (m?.[2] === '/events') {
			if (moment !== 'stream') return envelope(res, 501, 'not_implemented');
			inside.count++;
			res.writeHead(200, { 'content-type': 'text/event-stream' });
			return void res.write(`event: status\ndata: {"status":"running"}\n\n`);
		}
		if (m) {
			const answer = () => json(res, 200, job(m[1]!, status(), { outputs: status() === 'succeeded' ? [outputOf(m[1]!)] : [] }));
			return moment === 'read' && made.includes(m[1]!) ? held(res, answer) : answer();
		}
		if (req.url.startsWith('/api/v2/assets/') && req.url.endsWith('/content'))
			return held(res, () => {
				res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) });
				res.end(PNG);
			});
		envelope(res, 404, 'not_found');
	};
	return { made, inside };
}
/** An output whose link is expired, so its bytes are asked of /content (held by the server). */
const outputOf = (id: string) => ({
	node_id: '9',
	name: 'out.png',
	type: 'image',
	content_type: 'image/png',
	size_bytes: PNG.length,
	id: `a5e7c0de-0000-4000-8000-${id.slice(-12)}`,
	hash: null,
	url: `${v2.api.url}/api/v2/assets/x/content`,
	url_expires_at: '2020-01-01T00:00:00Z',
	job_id: id,
});

async function stopInside(moment: Moment, places: number | undefined, items = 3) {
	// Held long enough that Stop lands inside, even on a loaded machine.
	const server = scripted(moment, 6000);
	const stop = new AbortController();
	const running = v2.harness.runNode(
		nodeSpec(
			v2,
			executeParameters({
				waitOptions: { pollIntervalSeconds: 0.1, maxWaitMinutes: 1, useWebSocket: moment === 'stream' },
				downloadFiles: moment === 'download',
				// Unset, Max Concurrent Jobs is 3.
				...(places ? { additionalFields: { maxConcurrentJobs: places } } : {}),
			}),
		),
		Array.from({ length: items }, () => ({ json: {} })),
		{ signal: stop.signal },
	);
	const inside = Math.min(items, places ?? items);
	for (let i = 0; i < 500 && server.inside.count < inside; i++) await sleep(10);
	expect(server.inside.count).toBeGreaterThanOrEqual(inside);
	stop.abort();
	await running;
	// The cancels go out as the run ends (clean-up): give them a moment to arrive.
	const cancels = () => v2.api.seen.filter((r) => r.url.endsWith('/cancel')).map((r) => r.url.split('/')[4]!);
	for (let i = 0; i < 300 && cancels().length < server.made.length; i++) await sleep(10);
	await sleep(300);
	return { made: server.made, cancelled: cancels() };
}

describe.each([[undefined], [2], [1]])('Stop with 3 items, Max Concurrent Jobs %s (unset: 3)', (places) => {
	test.each([['read' as const], ['stream' as const]])(
		'during the jobs’ %s: each job made is cancelled once, no other',
		async (moment) => {
			const { made, cancelled } = await stopInside(moment, places);

			expect(made.length).toBe(places ?? 3);
			expect([...cancelled].sort()).toEqual([...made].sort());
		},
		30_000,
	);

	test('during the submits (the server made the jobs, its answers not yet sent): each job made is cancelled once, no other', async () => {
		const { made, cancelled } = await stopInside('submit', places);

		expect(made.length).toBeGreaterThan(0);
		expect([...cancelled].sort()).toEqual([...made].sort());
	}, 30_000);

	test('during the downloads (their jobs succeeded): those jobs are not cancelled; any other job made is, once', async () => {
		const { made, cancelled } = await stopInside('download', places);
		const downloading = made.filter((id) => v2.api.seen.some((r) => r.url.endsWith(`${id.slice(-12)}/content`)));

		expect(downloading.length).toBeGreaterThan(0);
		expect([...cancelled].sort()).toEqual(made.filter((id) => !downloading.includes(id)).sort());
	}, 30_000);
});
