/**
 * The cloud workflow-execution API ({base_url}/api/..., WebSocket /ws). Routes live here;
 * graph checks, jobs, the runner, the socket hub, the catalogue and file bytes have their own
 * modules in this folder, the job engine the self-hosted flavour runs on as well.
 *
 * Folder rule: cloud/ owns the cloud API and that engine, and imports only shared/ (never
 * self-hosted/, which builds on it). server.ts wires it up. test/simulator/shared/import-rules.test.ts
 * checks the rule.
 *
 * Choices where the spec says "not shown" (documented for client writers):
 * - 400 bodies: `{error: {type, message, details, extra_info}, node_errors}`; message names the
 *   node, its class and the input at fault.
 * - A LoadImage/LoadImageMask input naming a file the account never uploaded is a validation
 *   400 at submit (value_not_in_list), as the local runner does; the job is never queued.
 * - Upload answers `{name, subfolder: "", type}`; mask uploads need original_ref to name an
 *   uploaded file (404 otherwise). /api/view ignores subfolder for type input (flat storage).
 * - GET /api/queue entries use the local runner's tuple shape
 *   `[number, prompt_id, prompt, extra_data (no secrets), output node ids]`.
 * - POST /api/queue answers `{deleted: [ids]}`, POST /api/interrupt `{interrupted: [ids]}`.
 * - Credits are checked (402 at 0) but not spent.
 */
import { createHash } from 'node:crypto';
import type { Server, ServerResponse } from 'node:http';
import { extname } from 'node:path';

import { buildCatalogue, type NodeDefinition } from './catalogue';
import { checkSubmission } from './graph';
import { JobBoard, isTerminal, jobRecord, queueEntry } from './jobs';
import { FileNamer, storageKey } from './run';
import type { ExecutionFailure, Job, JobView } from './types';
import { SocketHub } from './ws';
import type { SocketHubBase, WsHandshake } from '../shared/ws-hub';
import type { AreaContext } from '../shared/context';
import { type Account, type Handler, type SimRequest, isPlainObject, readJson, sendError, sendJson } from '../shared/core';
import { EXTENSION_BY_IMAGE_TYPE, IMAGE_TYPE_BY_EXTENSION } from '../shared/file-types';
import { isUploadProblem, readUploadForm } from '../shared/upload-form';

/** A file accepted by /api/upload/image or /api/upload/mask. */
export interface UploadedInput {
	accountId: string;
	name: string;
	/** Self-hosted only: the subfolder as the client gave it (the cloud's storage is flat). */
	subfolder?: string;
	type: string;
	size: number;
	contentType: string;
	mask: boolean;
}

export interface CloudArea {
	/** Whether a request may reach the routes; when not, it has been answered (the self-hosted flavour's reverse proxy). */
	admits?(req: SimRequest, res: ServerResponse): boolean;
	attach(server: Server): void;
	/** Stops and forgets jobs, uploads, file counters and WebSocket fault state. */
	reset(): void;
	/** reset() plus terminating every WebSocket. */
	close(): Promise<void>;
	/** prompt_id → job (status, accountId, timestamps, outputs, extraDataKeys...). */
	readonly jobs: ReadonlyMap<string, JobView>;
	/** The next submitted job fails with this execution_error (at nodeId, else its last node). */
	failNextJob(failure: ExecutionFailure): void;
	/** Output files of jobs submitted from now on are synthetic streams of this many bytes (undefined: small real files). */
	setOutputSize(bytes: number | undefined): void;
	/** WebSocket connections open now. */
	openSockets(): number;
	/** Upgrade attempts on the cloud host, token masked (the request log does not see upgrades). */
	readonly wsHandshakes: readonly WsHandshake[];
	/** Files accepted by the upload endpoints, oldest first. */
	readonly uploads: readonly UploadedInput[];
}

type AccountHandler = (req: SimRequest, res: ServerResponse, account: Account) => void | Promise<void>;

const UPLOAD_TYPES = new Set(['input', 'temp', 'output']);

export function createCloudArea(ctx: AreaContext): CloudArea {
	const uploads: UploadedInput[] = [];
	const names = new FileNamer();
	// Without the per-account upload lists: enough for running jobs, which only read classes.
	const catalogue = buildCatalogue();
	const hub = new SocketHub({
		faults: ctx.faults,
		counters: ctx.counters,
		accountByApiKey: (key) => ctx.accountByApiKey(key),
		queueRemaining: (accountId) => board.queueRemaining(accountId),
		log: (line) => ctx.log(line),
	});
	const board: JobBoard = new JobBoard((id) => ctx.accounts.find((a) => a.id === id), {
		emit: (accountId, message) => hub.emit(accountId, message),
		storage: ctx.storage,
		options: ctx.options,
		catalogue,
		names,
		log: (line) => ctx.log(line),
	});

	const inputNames = (accountId: string) => uploads.filter((u) => u.accountId === accountId && u.type === 'input').map((u) => u.name);
	const catalogueFor = (account: Account): Record<string, NodeDefinition> => buildCatalogue([...new Set(inputNames(account.id))]);
	const ownJob = (account: Account, id: string): Job | undefined => {
		const job = board.jobs.get(id);
		return job && job.accountId === account.id ? job : undefined;
	};

	const authed =
		(handler: AccountHandler): Handler =>
		(req, res) => {
			const header = req.headers['x-api-key'];
			const key = Array.isArray(header) ? header[0] : header;
			const account = ctx.accountByApiKey(key);
			if (!account) {
				const message = key ? 'The X-API-Key header holds an unknown API key.' : 'Missing X-API-Key header: every call needs your API key.';
				return sendError(res, 401, 'cloud', 'unauthorized', message);
			}
			return handler(req, res, account);
		};

	const r = ctx.cloudRouter;
	r.add(
		'GET',
		'/api/object_info',
		authed((_req, res, account) => sendJson(res, 200, catalogueFor(account))),
	);
	r.add(
		'GET',
		'/api/object_info/:nodeClass',
		authed((req, res, account) => {
			const def = catalogueFor(account)[req.params.nodeClass];
			if (!def) return sendError(res, 404, 'cloud', 'not_found', `No node type named ${req.params.nodeClass}.`);
			sendJson(res, 200, { [def.name]: def });
		}),
	);
	r.add(
		'POST',
		'/api/prompt',
		authed((req, res, account) => submit(req, res, account)),
	);
	r.add(
		'GET',
		'/api/job/:id/status',
		authed((req, res, account) => {
			const job = ownJob(account, req.params.id);
			if (!job) return sendError(res, 404, 'cloud', 'not_found', `No job with prompt_id ${req.params.id}.`);
			sendJson(res, 200, { status: job.status });
		}),
	);
	r.add(
		'GET',
		'/api/jobs/:id',
		authed((req, res, account) => {
			const job = ownJob(account, req.params.id);
			if (!job) return sendError(res, 404, 'cloud', 'not_found', `No job with prompt_id ${req.params.id}.`);
			sendJson(res, 200, jobRecord(job, ctx.options.jobsEndpointOutputs));
		}),
	);
	r.add(
		'GET',
		'/api/view',
		authed((req, res, account) => view(req, res, account)),
	);
	r.add(
		'POST',
		'/api/upload/image',
		authed((req, res, account) => upload(req, res, account, false)),
	);
	r.add(
		'POST',
		'/api/upload/mask',
		authed((req, res, account) => upload(req, res, account, true)),
	);
	r.add(
		'GET',
		'/api/queue',
		authed((_req, res, account) => {
			sendJson(res, 200, {
				queue_running: board.runningOf(account.id).map((job) => queueEntry(job, catalogue)),
				queue_pending: board.pendingOf(account.id).map((job) => queueEntry(job, catalogue)),
			});
		}),
	);
	r.add(
		'POST',
		'/api/queue',
		authed((req, res, account) => editQueue(req, res, account)),
	);
	r.add(
		'POST',
		'/api/interrupt',
		authed((req, res, account) => interrupt(req, res, account)),
	);

	function submit(req: SimRequest, res: ServerResponse, account: Account): void {
		const body = readJson<unknown>(req, res);
		if (body === undefined) return;
		if (!account.subscriptionActive) {
			return sendError(
				res,
				429,
				'cloud',
				'subscription_inactive',
				'Your subscription is inactive: running workflows needs an active subscription.',
			);
		}
		if (account.credits <= 0) {
			return sendError(res, 402, 'cloud', 'insufficient_credits', 'Your account has no credits left: add credits to run workflows.');
		}
		const check = checkSubmission(body, catalogueFor(account));
		if (!check.ok) {
			const error = { type: check.type, message: check.message, details: check.details, extra_info: {} };
			return sendJson(res, 400, { error, node_errors: check.nodeErrors });
		}
		const { extra_data: extraData = {}, client_id: clientId } = body as Record<string, unknown>;
		if (!isPlainObject(extraData)) return sendError(res, 400, 'cloud', 'invalid_extra_data', 'extra_data must be an object.');
		if (ctx.faults.chaos?.roll('executionError')) {
			board.failNextJob({
				exception_type: 'OOMError',
				exception_message: 'Out of GPU memory while running this workflow (injected fault).',
			});
		}
		const job = board.submit({
			account,
			graph: check.graph,
			order: check.order,
			extraData,
			clientId: typeof clientId === 'string' ? clientId : undefined,
		});
		sendJson(res, 200, { prompt_id: job.promptId, number: job.number, node_errors: {} });
	}

	function view(req: SimRequest, res: ServerResponse, account: Account): void {
		const filename = req.query.get('filename');
		if (!filename) return sendError(res, 400, 'cloud', 'missing_filename', 'The filename query parameter is required.');
		const type = req.query.get('type') || 'output';
		// Uploaded inputs are stored flat: a subfolder the client kept from its upload form is ignored.
		const subfolder = type === 'input' ? '' : (req.query.get('subfolder') ?? '');
		const key = storageKey(account.id, type, subfolder, filename);
		if (!ctx.storage.get(key)) {
			return sendError(res, 404, 'cloud', 'not_found', `No ${type} file ${subfolder ? `${subfolder}/` : ''}${filename}.`);
		}
		const fault = ctx.faults.redirectWithoutLocation;
		if (fault && fault.count > 0) {
			if (--fault.count === 0) delete ctx.faults.redirectWithoutLocation;
			res.writeHead(302, { 'content-length': 0 });
			return void res.end();
		}
		res.writeHead(302, { location: ctx.storage.signedUrl(key, 'GET'), 'content-length': 0 });
		res.end();
	}

	function upload(req: SimRequest, res: ServerResponse, account: Account, mask: boolean): void {
		const form = readUploadForm(req, ctx.options.uploadLimitBytes);
		if (isUploadProblem(form)) return sendError(res, form.status, 'cloud', form.code, form.message);
		const { image, field } = form;
		const type = field('type') || 'input';
		if (!UPLOAD_TYPES.has(type)) return sendError(res, 400, 'cloud', 'invalid_type', `type must be input, temp or output, not '${type}'.`);
		if (mask) {
			const problem = maskOriginalProblem(account, field('original_ref'));
			if (problem) return sendError(res, problem.status, 'cloud', problem.code, problem.message);
		}
		const ext = uploadExtension(image.filename, image.contentType);
		const name = `${createHash('sha256').update(image.data).digest('hex')}${ext}`;
		const contentType = image.contentType ?? IMAGE_TYPE_BY_EXTENSION[ext] ?? 'application/octet-stream';
		ctx.storage.put(storageKey(account.id, type, '', name), contentType, Buffer.from(image.data));
		uploads.push({ accountId: account.id, name, type, size: image.data.length, contentType, mask });
		sendJson(res, 200, { name, subfolder: '', type });
	}

	/** original_ref must be JSON naming a file this account uploaded (subfolder ignored: storage is flat). */
	function maskOriginalProblem(account: Account, text: string | undefined): { status: number; code: string; message: string } | undefined {
		if (!text)
			return {
				status: 400,
				code: 'missing_original_ref',
				message: 'Mask uploads need original_ref: JSON naming the image the mask belongs to.',
			};
		let ref: unknown;
		try {
			ref = JSON.parse(text);
		} catch {
			return { status: 400, code: 'invalid_original_ref', message: 'original_ref is not valid JSON.' };
		}
		if (!isPlainObject(ref) || typeof ref.filename !== 'string' || ref.filename === '') {
			return { status: 400, code: 'invalid_original_ref', message: 'original_ref must be a JSON object with a filename.' };
		}
		const type = typeof ref.type === 'string' && ref.type !== '' ? ref.type : 'input';
		if (!ctx.storage.get(storageKey(account.id, type, '', ref.filename))) {
			return {
				status: 404,
				code: 'original_not_found',
				message: `original_ref names ${ref.filename}, which is not an uploaded ${type} file.`,
			};
		}
		return undefined;
	}

	function editQueue(req: SimRequest, res: ServerResponse, account: Account): void {
		const body = readJson<unknown>(req, res);
		if (body === undefined) return;
		const ids = isPlainObject(body) ? body.delete : undefined;
		const clear = isPlainObject(body) && body.clear === true;
		if (ids !== undefined && (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))) {
			return sendError(res, 400, 'cloud', 'invalid_request', 'delete must be an array of prompt_id strings.');
		}
		if (ids === undefined && !clear) {
			return sendError(
				res,
				400,
				'cloud',
				'invalid_request',
				'Send {"delete": [prompt ids]} to cancel jobs, or {"clear": true} to cancel every pending job.',
			);
		}
		const targets = new Set<Job>(clear ? board.pendingOf(account.id) : []);
		for (const id of (ids as string[] | undefined) ?? []) {
			const job = ownJob(account, id);
			if (job && !isTerminal(job)) targets.add(job);
		}
		// Pending first: cancelling a running job starts the next pending one, which may be listed too.
		const ordered = [...targets].sort((a, b) => Number(a.status === 'in_progress') - Number(b.status === 'in_progress'));
		const deleted = ordered.filter((job) => board.cancel(job)).map((job) => job.promptId);
		sendJson(res, 200, { deleted });
	}

	function interrupt(req: SimRequest, res: ServerResponse, account: Account): void {
		const text = req.rawBody.toString('utf8').trim();
		let only: string | undefined;
		if (text !== '') {
			const body = readJson<unknown>(req, res);
			if (body === undefined) return;
			if (isPlainObject(body) && typeof body.prompt_id === 'string') only = body.prompt_id;
		}
		const running = board.runningOf(account.id).filter((job) => only === undefined || job.promptId === only);
		const interrupted = running.filter((job) => board.cancel(job)).map((job) => job.promptId);
		sendJson(res, 200, { interrupted });
	}

	return areaControls({ board, names, uploads, hub });
}

/**
 * The test controls of a cloud area over its parts, the same in both flavours; `forget` clears
 * what a flavour keeps besides (the self-hosted history).
 */
export function areaControls(parts: {
	board: JobBoard;
	names: FileNamer;
	uploads: UploadedInput[];
	hub: SocketHubBase;
	forget?: () => void;
}): Omit<CloudArea, 'admits'> {
	const { board, names, uploads, hub } = parts;
	return {
		attach: (server) => hub.attach(server),
		reset() {
			board.reset();
			names.reset();
			uploads.length = 0;
			parts.forget?.();
			hub.reset();
		},
		async close() {
			board.reset();
			await hub.close();
		},
		jobs: board.jobs,
		failNextJob: (failure) => board.failNextJob(failure),
		setOutputSize(bytes) {
			board.outputSize = bytes;
		},
		openSockets: () => hub.openSockets(),
		wsHandshakes: hub.handshakes,
		uploads,
	};
}

/** The original extension (lower-cased) when it looks like one, else one from the content type. */
function uploadExtension(filename: string | undefined, contentType: string | undefined): string {
	const ext = extname(filename ?? '').toLowerCase();
	if (/^\.[a-z0-9]{1,5}$/.test(ext)) return ext;
	return EXTENSION_BY_IMAGE_TYPE[String(contentType).toLowerCase()] ?? '';
}
