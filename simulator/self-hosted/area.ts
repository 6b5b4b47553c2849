/**
 * The self-hosted flavour: a ComfyUI-compatible graph server at the base URL, in place of the
 * cloud API. Graphs are checked, queued and run by the cloud's engine (cloud/graph, cloud/jobs,
 * cloud/run, shared/storage); this flavour changes what a client sees, after the upstream server:
 * - every route answers with and without the /api prefix; there is no key (an optional reverse
 *   proxy may want a header or basic credentials) and no job status route: a job is pending or
 *   running while it is in /queue, and over once it is in /history;
 * - one job runs at a time; messages go by client id (ws.ts);
 * - /view answers the file itself (files.ts);
 * - the model folders and their files (models.ts), and POST /free;
 * - POST /queue `delete` and `clear` take pending jobs off the queue silently and leave the running
 *   one alone; POST /interrupt stops the running job (with a prompt_id: only if it is that one);
 *   both answer 200 with no body.
 * Where upstream crashes on a malformed body, so does this (500).
 *
 * Folder rule: self-hosted/ owns this flavour and imports shared/ and cloud/ (its engine, so the
 * two servers run jobs alike), never registry/ or media/. server.ts picks it or cloud/ by flavour.
 * test/simulator/shared/import-rules.test.ts checks the rule.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { areaControls, type CloudArea, type UploadedInput } from '../cloud/area';
import { buildCatalogue, type NodeDefinition } from '../cloud/catalogue';
import { checkSubmission } from '../cloud/graph';
import { JobBoard, queueEntry } from '../cloud/jobs';
import { FileNamer } from '../cloud/run';
import type { Job } from '../cloud/types';
import type { AreaContext } from '../shared/context';
import { type Account, type Handler, type SimRequest, isPlainObject, sendJson } from '../shared/core';
import { OutputCache } from '../cloud/cache';
import { bare, crash, createFileHandlers, loadableName } from './files';
import { proxyRefusal, sendProxyRefusal } from './gate';
import { type HistoryEntry, HistoryBook } from './history';
import { createModelHandlers, type FreeRequest } from './models';
import { ClientSocketHub, upstreamShape } from './ws';

export interface SelfHostedArea extends CloudArea {
	/** prompt_id → history entry, in the order jobs finished. */
	readonly history: ReadonlyMap<string, HistoryEntry>;
	/** What each POST /free asked, in order. */
	readonly freed: ReadonlyArray<FreeRequest>;
}

/** extra_data keys the server keeps out of the history: the platform key for partner nodes, under upstream's names. */
const SENSITIVE_KEYS = ['api_key_comfy_org', 'auth_token_comfy_org'];

/** The JSON body, or undefined after answering 500 (the server does not catch a broken body). */
function jsonBody(req: SimRequest, res: ServerResponse): unknown {
	try {
		return JSON.parse(req.rawBody.toString('utf8'));
	} catch {
		return void crash(res);
	}
}

/** The catalogue with partner nodes' hidden inputs under upstream's names (api_key_comfy_org, not the cloud's api_key_host_org). */
function upstreamCatalogue(inputFiles: string[] = []): Record<string, NodeDefinition> {
	const catalogue = buildCatalogue(inputFiles);
	for (const def of Object.values(catalogue)) {
		const hidden = def.input.hidden;
		if (!hidden) continue;
		def.input.hidden = Object.fromEntries(
			Object.entries(hidden).map(([name, kind]) => [name.replace(/_host_org$/, '_comfy_org'), kind.replace(/_HOST_ORG$/, '_COMFY_ORG')]),
		);
		if (def.input_order.hidden) def.input_order.hidden = def.input_order.hidden.map((name) => name.replace(/_host_org$/, '_comfy_org'));
	}
	return catalogue;
}

function ok(res: ServerResponse): void {
	bare(res, 200);
}

export function createSelfHostedArea(ctx: AreaContext): SelfHostedArea {
	// One owner for every job and file, running one job at a time like the upstream server.
	const owner: Account = { ...ctx.accounts[0], id: 'self-hosted', parallelLimit: 1 };
	const uploads: UploadedInput[] = [];
	const names = new FileNamer();
	const cache = new OutputCache();
	const catalogue = upstreamCatalogue();
	/** extra_data as submitted (client_id merged in): /queue shows it whole, as upstream does. */
	const submittedExtra = new Map<string, Record<string, unknown>>();
	const publicExtra = (job: Job) => {
		const extra = { ...submittedExtra.get(job.promptId) };
		for (const key of SENSITIVE_KEYS) delete extra[key];
		return extra;
	};
	const history = new HistoryBook((job) => queueEntry(job, catalogue, publicExtra(job)));
	const hub = new ClientSocketHub({
		faults: ctx.faults,
		counters: ctx.counters,
		refusal: (req) => proxyRefusal(req.headers, ctx.options.proxyAuth),
		queueRemaining: () => board.queueRemaining(owner.id),
		runningFor: (clientId) => board.runningOf(owner.id).find((job) => job.clientId === clientId),
		accountId: owner.id,
		log: (line) => ctx.log(line),
	});
	const board: JobBoard = new JobBoard(() => owner, {
		emit(_accountId, message, job) {
			const shaped = upstreamShape(message, job);
			if (job && !Buffer.isBuffer(shaped)) history.observe(job, shaped);
			hub.emit(shaped, job);
		},
		storage: ctx.storage,
		options: ctx.options,
		catalogue,
		names,
		log: (line) => ctx.log(line),
		otherJobMessages: false,
		cache,
		// A partner node on a self-hosted server calls the platform with the key it was given; without one it fails.
		partnerRefusal: (nodeId, classType) => ({
			exception_type: 'Exception',
			exception_message:
				`Unauthorized: partner node ${classType} (node ${nodeId}) needs your platform API key in ` +
				'extra_data.api_key_comfy_org, and none was given.',
		}),
	});
	const files = createFileHandlers({
		storage: ctx.storage,
		accountId: owner.id,
		uploads,
		uploadLimitBytes: () => ctx.options.uploadLimitBytes,
	});
	const models = createModelHandlers();
	// LoadImage accepts any file in the input folder, subfolders included.
	const catalogueNow = (): Record<string, NodeDefinition> =>
		upstreamCatalogue([...new Set(uploads.filter((u) => u.type === 'input').map(loadableName))]);

	/** Registers a route with and without the /api prefix; GET routes answer HEAD too. */
	const route = (method: 'GET' | 'POST', path: string, handler: Handler) => {
		for (const prefix of ['', '/api']) {
			ctx.cloudRouter.add(method, `${prefix}${path}`, handler);
			if (method === 'GET') ctx.cloudRouter.add('HEAD', `${prefix}${path}`, handler);
		}
	};

	route('GET', '/object_info', (_req, res) => sendJson(res, 200, catalogueNow()));
	route('GET', '/object_info/:nodeClass', (req, res) => {
		const def = catalogueNow()[req.params.nodeClass];
		sendJson(res, 200, def ? { [def.name]: def } : {});
	});
	route('GET', '/system_stats', (_req, res) => sendJson(res, 200, systemStats()));
	route('GET', '/prompt', (_req, res) => sendJson(res, 200, { exec_info: { queue_remaining: board.queueRemaining(owner.id) } }));
	route('POST', '/prompt', (req, res) => submit(req, res));
	route('GET', '/queue', (_req, res) => {
		const entry = (job: Job) => queueEntry(job, catalogue, submittedExtra.get(job.promptId));
		sendJson(res, 200, { queue_running: board.runningOf(owner.id).map(entry), queue_pending: board.pendingOf(owner.id).map(entry) });
	});
	route('POST', '/queue', (req, res) => editQueue(req, res));
	route('POST', '/interrupt', (req, res) => interrupt(req, res));
	route('GET', '/history', (req, res) => listHistory(req, res));
	route('GET', '/history/:id', (req, res) => sendJson(res, 200, history.one(req.params.id)));
	route('POST', '/history', (req, res) => editHistory(req, res));
	route('GET', '/models', models.folders);
	route('GET', '/models/:folder', models.files);
	route('GET', '/embeddings', models.embeddings);
	route('GET', '/extensions', models.extensions);
	route('POST', '/free', models.free);
	route('GET', '/view', files.view);
	route('POST', '/upload/image', files.uploadImage);
	route('POST', '/upload/mask', files.uploadMask);

	function submit(req: SimRequest, res: ServerResponse): void {
		const body = jsonBody(req, res);
		if (body === undefined) return;
		// Upstream reads the prompt's entries without a check: anything but an object crashes it.
		const prompt = (body as Record<string, unknown>).prompt;
		if (prompt !== undefined && !isPlainObject(prompt)) return crash(res);
		const check = checkSubmission(body, catalogueNow());
		if (!check.ok) {
			const error = { type: check.type, message: check.message, details: check.details, extra_info: {} };
			return sendJson(res, 400, { error, node_errors: check.nodeErrors });
		}
		const { extra_data: given = {}, prompt_id: wantedId } = body as Record<string, unknown>;
		if (!isPlainObject(given)) return crash(res);
		const extra = { ...given };
		if ('client_id' in (body as object)) extra.client_id = (body as Record<string, unknown>).client_id;
		const promptId = wantedId === undefined || wantedId === null ? undefined : String(wantedId);
		if (promptId !== undefined && board.jobs.has(promptId)) {
			// Upstream would queue a second job under the same id; the simulator keeps ids unique.
			const message = `prompt_id ${promptId} is already used by another job.`;
			return sendJson(res, 400, { error: { type: 'duplicate_prompt_id', message, details: message, extra_info: {} }, node_errors: {} });
		}
		// Kept before the job starts: a job whose nodes are all cached is over before submit returns.
		const id = promptId ?? randomUUID();
		submittedExtra.set(id, extra);
		const job = board.submit({
			account: owner,
			graph: check.graph,
			order: check.order,
			extraData: extra,
			clientId: typeof extra.client_id === 'string' ? extra.client_id : undefined,
			promptId: id,
			partnerAuthorised: SENSITIVE_KEYS.some((key) => typeof extra[key] === 'string' && extra[key] !== ''),
		});
		sendJson(res, 200, { prompt_id: job.promptId, number: job.number, node_errors: {} });
	}

	function editQueue(req: SimRequest, res: ServerResponse): void {
		const body = jsonBody(req, res);
		if (body === undefined) return;
		if (!isPlainObject(body) || (body.delete !== undefined && !Array.isArray(body.delete))) return crash(res);
		if (body.clear) for (const job of board.pendingOf(owner.id)) board.withdraw(job);
		for (const id of (body.delete as unknown[] | undefined) ?? []) {
			const job = board.jobs.get(String(id));
			if (job) board.withdraw(job); // a running (or finished) job is not in the queue: left alone
		}
		ok(res);
	}

	function interrupt(req: SimRequest, res: ServerResponse): void {
		let body: unknown = {};
		try {
			body = JSON.parse(req.rawBody.toString('utf8'));
		} catch {
			// no body, or not JSON: a global interrupt
		}
		const only = isPlainObject(body) ? body.prompt_id : undefined;
		for (const job of board.runningOf(owner.id)) if (!only || job.promptId === only) board.cancel(job);
		ok(res);
	}

	function listHistory(req: SimRequest, res: ServerResponse): void {
		const number = (name: string): number | undefined | null => {
			const text = req.query.get(name);
			if (text === null) return undefined;
			return /^\s*[-+]?\d+\s*$/.test(text) ? Number(text) : null;
		};
		const maxItems = number('max_items');
		const offset = number('offset');
		if (maxItems === null || offset === null) return crash(res); // upstream int() fails on it
		sendJson(res, 200, history.list(maxItems, offset));
	}

	function editHistory(req: SimRequest, res: ServerResponse): void {
		const body = jsonBody(req, res);
		if (body === undefined) return;
		if (!isPlainObject(body) || (body.delete !== undefined && !Array.isArray(body.delete))) return crash(res);
		if (body.clear) history.clear();
		for (const id of (body.delete as unknown[] | undefined) ?? []) history.delete(String(id));
		ok(res);
	}

	return {
		admits(req, res) {
			const refusal = proxyRefusal(req.headers, ctx.options.proxyAuth);
			if (refusal) sendProxyRefusal(res, refusal);
			return refusal === undefined;
		},
		...areaControls({
			board,
			names,
			uploads,
			hub,
			forget() {
				submittedExtra.clear();
				history.reset();
				cache.clear();
				models.reset();
			},
		}),
		history: history.view(),
		freed: models.freed,
	};
}

/** GET /system_stats: what a client reads to see it reached a working server (the values are the simulator's). */
function systemStats(): Record<string, unknown> {
	const gib = 1024 ** 3;
	return {
		system: {
			os: 'posix',
			ram_total: 64 * gib,
			ram_free: 48 * gib,
			comfyui_version: '0.3.64',
			required_frontend_version: '1.27.10',
			installed_templates_version: null,
			required_templates_version: '0.1.95',
			python_version: '3.12.3 (simulated)',
			pytorch_version: '2.8.0+cu128',
			embedded_python: false,
			argv: ['main.py', '--listen', '127.0.0.1'],
		},
		devices: [
			{
				name: 'cuda:0 Simulated GPU',
				type: 'cuda',
				index: 0,
				vram_total: 24 * gib,
				vram_free: 20 * gib,
				torch_vram_total: 24 * gib,
				torch_vram_free: 20 * gib,
			},
		],
	};
}
