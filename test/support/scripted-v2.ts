/**
 * A small scripted v2 jobs server on loopback, for the cases the simulator is not built to stage
 * (an answer about another job, a stream cut mid-frame) and for counting what the node sends: it
 * keeps the contract's Idempotency-Key rules (single-use; released after a definite refusal, kept
 * after an unknown outcome), finishes a job a set time after it was created, and streams its
 * events or refuses them (501 not_implemented, 429 too_many_streams). Its `script` says what to do.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { startLoopbackServer, type LoopbackServer, type SeenRequest } from './loopback-server';

export interface ScriptedJob {
	id: string;
	key?: string;
	createdAt: number;
	status: string;
	canceled?: boolean;
}

export interface V2Script {
	/** How long a job runs, from its creation (ms). */
	runsForMs: number;
	events: 'on' | 'not-implemented' | 'too-many-streams';
	/** The next submits' answers lost after the job was made: the connection cut, or a 500 upstream_error. */
	loseSubmits: Array<'reset' | 'upstream_error'>;
	/** The next submits refused before anything is made (key released): 429 queue_full, 402 insufficient_credits. */
	refuseSubmits: Array<'queue_full' | 'insufficient_credits'>;
	/** Every job read (GET, cancel) answered as another job. */
	answerAnotherJob: boolean;
	/** The submit's answer is sent this long after its job was made (a Stop can land in between). */
	answerSubmitAfterMs?: number;
	/** Jobs end failed at this node. */
	failAt?: { node_id: string; class_type: string; message: string };
}

const envelope = (code: string, message: string) => JSON.stringify({ error: { code, message } });

export interface ScriptedV2 {
	server: LoopbackServer;
	url: string;
	script: V2Script;
	jobs: Map<string, ScriptedJob>;
	requests(method: string, pathStart: string): SeenRequest[];
	reset(): void;
	close(): Promise<void>;
}

const defaults = (): V2Script => ({ runsForMs: 300, events: 'on', loseSubmits: [], refuseSubmits: [], answerAnotherJob: false });

export async function startScriptedV2(): Promise<ScriptedV2> {
	const jobs = new Map<string, ScriptedJob>();
	const claimed = new Set<string>();
	const self = { script: defaults(), jobs } as ScriptedV2;
	const statusOf = (job: ScriptedJob): string => {
		if (job.canceled) return 'canceled';
		if (Date.now() - job.createdAt < self.script.runsForMs) return 'running';
		return self.script.failAt ? 'failed' : 'succeeded';
	};
	const jobJson = (job: ScriptedJob, read = false) => {
		const status = statusOf(job);
		const done = status === 'succeeded';
		return {
			id: read && self.script.answerAnotherJob ? randomUUID() : job.id,
			status,
			created_at: new Date(job.createdAt).toISOString(),
			started_at: null,
			completed_at: done ? new Date().toISOString() : null,
			expires_at: new Date(job.createdAt + 86_400_000).toISOString(),
			queue_position: null,
			progress: null,
			outputs: done
				? [
						{
							node_id: '9',
							name: 'out.png',
							type: 'image',
							content_type: 'image/png',
							size_bytes: 68,
							id: `asset-${job.id}`,
							hash: null,
							url: `${self.url}/signed/${job.id}.png`,
							url_expires_at: new Date(Date.now() + 3600_000).toISOString(),
							job_id: job.id,
						},
					]
				: [],
			error: status === 'failed' ? { code: 'node_execution_error', ...self.script.failAt } : null,
			urls: { self: `/api/v2/jobs/${job.id}`, events: `/api/v2/jobs/${job.id}/events`, cancel: `/api/v2/jobs/${job.id}/cancel` },
		};
	};
	const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
		res.writeHead(status, { 'content-type': 'application/json', ...headers });
		res.end(body);
	};
	const submit = (req: SeenRequest, res: ServerResponse) => {
		const key = String(req.headers['idempotency-key'] ?? '');
		if (key && claimed.has(key)) return send(res, 422, envelope('idempotency_key_reuse', 'This Idempotency-Key was already used.'));
		const refusal = self.script.refuseSubmits.shift();
		if (refusal === 'queue_full') return send(res, 429, envelope('queue_full', 'The queue is full.'), { 'retry-after': '1' });
		if (refusal) return send(res, 402, envelope('insufficient_credits', 'Top up.'));
		if (key) claimed.add(key);
		const job: ScriptedJob = { id: randomUUID(), key, createdAt: Date.now(), status: 'queued' };
		jobs.set(job.id, job);
		const lost = self.script.loseSubmits.shift();
		if (lost === 'reset') return void res.socket?.destroy();
		if (lost === 'upstream_error') return send(res, 500, envelope('upstream_error', 'Something went wrong.'));
		const answer = () => send(res, 201, JSON.stringify({ ...jobJson(job), status: 'queued' }));
		if (self.script.answerSubmitAfterMs) setTimeout(answer, self.script.answerSubmitAfterMs);
		else answer();
	};
	const events = (job: ScriptedJob, res: ServerResponse) => {
		if (self.script.events === 'not-implemented') return send(res, 501, envelope('not_implemented', 'No streams here.'));
		if (self.script.events === 'too-many-streams')
			return send(res, 429, envelope('too_many_streams', 'Too many streams.'), { 'retry-after': '30' });
		res.writeHead(200, { 'content-type': 'text/event-stream' });
		res.write(`event: status\ndata: ${JSON.stringify({ status: statusOf(job) })}\n\n`);
		const end = () => {
			if (res.destroyed) return;
			res.write(`event: status\ndata: ${JSON.stringify({ status: statusOf(job) })}\n\n`);
			res.end();
		};
		setTimeout(end, Math.max(0, job.createdAt + self.script.runsForMs - Date.now()) + 5);
	};
	const server = await startLoopbackServer((req, res) => {
		const path = req.url.split('?')[0]!;
		if (req.method === 'POST' && path === '/api/v2/jobs') return submit(req, res);
		const match = /^\/api\/v2\/jobs\/([^/]+)(\/events|\/cancel)?$/.exec(path);
		const job = match ? jobs.get(decodeURIComponent(match[1]!)) : undefined;
		if (!job) return send(res, 404, envelope('not_found', 'No such job.'));
		if (match![2] === '/events') return events(job, res);
		if (match![2] === '/cancel' && req.method === 'POST') job.canceled = statusOf(job) === 'running' || job.canceled;
		send(res, 200, JSON.stringify(jobJson(job, true)));
	});
	return Object.assign(self, {
		server,
		url: server.url,
		requests: (method: string, pathStart: string) => server.seen.filter((r) => r.method === method && r.url.startsWith(pathStart)),
		reset: () => {
			self.script = defaults();
			jobs.clear();
			claimed.clear();
			server.seen.length = 0;
		},
		close: () => server.close(),
	});
}
