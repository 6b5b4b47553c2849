/**
 * The v2 flavour: the Comfy API v2 at the base URL (test/contract/openapi-v2.yaml, the vendor's
 * published contract), as the cloud, a deployment behind its gateway, or a self-hosted proxy serves
 * it. Jobs are checked, queued and run by the cloud's engine (cloud/graph, cloud/jobs, cloud/run,
 * shared/storage); this folder is what a v2 client sees of them: assets (assets.ts,
 * asset-routes.ts), the v2 job view (jobs.ts, views.ts), submission (submit.ts), event streams
 * (events.ts), and a record of every exchange for contract checks (exchanges.ts).
 *
 * Folder rule: v2/ imports shared/ and cloud/ (the engine), never self-hosted/, registry/ or
 * media/. server.ts picks it by flavour. test/simulator/shared/import-rules.test.ts checks the rule.
 *
 * Where the contract is silent, the proxy's docs (Comfy-Org/comfy-api-proxy) decide when they say:
 * - cancel of a running job answers `canceling`; it becomes `canceled` at the next node start or
 *   sampler step (docs/cancellation.md, "Proxy behavior": "until the interrupt lands at a node
 *   boundary"). A job whose last node finishes first ends `succeeded`: cancel is "a request, not
 *   a guarantee" (same section).
 * - every event stream counts against `maxStreams` until it ends (the job finishes or the client
 *   leaves), and the 429 carries Retry-After (README.md, "Live events (SSE)").
 * - a self-hosted server with a token wants it on every /api/v2 request; without one, none
 *   (README.md, "Security defaults").
 * - webhook_url and inputs are refused as 422 invalid_workflow (tests/test_endpoints.py,
 *   test_reserved_fields_rejected); output assets resolve as core/ASSET references in later
 *   submissions (test_legitimately_minted_asset_id_round_trips).
 * - extra_data other than {api_key_comfy_org: string} is refused; the proxy says 400
 *   invalid_request (README.md, "Partner (API) node auth"), but the contract lists no 400 for
 *   POST /jobs, so it is 422 invalid_request here.
 * Where both are silent, chosen here:
 * - Hashes are written `blake3:<hex>` but the hex is SHA-256 (Node has no blake3; no dependency):
 *   opaque keys to a client. expected_hash is checked against that same value.
 * - Blobs are per account: an upload is a dedup hit (200, created_new false) only over bytes the
 *   same account stored before; from-hash and by-hash see only the caller's blobs (and its jobs'
 *   outputs).
 * - from-hash answers 200 with an existing record of that hash (and file_path, when given), as
 *   the proxy does (tests/test_endpoints.py, test_from_hash_and_by_hash); else 201 with a new
 *   record. Uploads mint a new record each time. Records have no
 *   deadline unless expires_in is given. from-hash has no 422 in the contract: a body without a
 *   hash answers 404 blob_not_found, an out-of-bounds expires_in is ignored.
 * - Upload validation (missing file, content_type or file_path, expires_in out of 60..604800,
 *   over uploadLimitBytes) answers 422 (invalid_request, file_too_large).
 * - A core/ASSET reference runs as the asset's file_path; GET .../workflow answers the workflow
 *   as submitted (references kept), never extra_data.
 * - POST /jobs checks in this order: subscription (403 forbidden on cloud and deployment), JSON,
 *   reserved fields, extra_data, workflow shape, assets, graph (422 invalid_workflow with
 *   details.node_errors {node id: [{field, reason, message}]}), then the platform: deployment
 *   readiness (429), credits (402), queue (429 queue_full counts the caller's unfinished jobs).
 * - Job errors have code `node_execution_error`; jobs are kept 24 h (expires_at); queue_position
 *   is the number of the caller's jobs ahead (0: next).
 * - Links: without a mount prefix, absolute URLs; with one, host-relative links that carry it.
 *   Asset `url`s are absolute: the signed storage host on cloud and deployment (15 min), the
 *   /content route on self-hosted.
 * - Every `status` event carries the whole job object (without logs), so the terminal one holds
 *   every output; progress and preview events are not throttled. A 501 (events off) answers
 *   before the job is looked up.
 * - rateLimitAfter counts job reads (GET a job, GET its workflow) per account in a window of
 *   Retry-After seconds; cancel is never rate limited.
 * - Deployment jobs carry `logs` on GET /jobs/{id} once finished (two short lines).
 * - Unknown paths and methods under the base answer 404 not_found (no 405 in the contract).
 */
import type { ServerResponse } from 'node:http';

import { AssetBook, type AssetRecord } from './assets';
import { registerAssetRoutes } from './asset-routes';
import { EventStreams } from './events';
import { recordExchange, type V2Exchange } from './exchanges';
import { isFinished, type JobEvent, type V2Job, V2JobBook } from './jobs';
import { type AccountHandler, isHosted, refuse, retryAfter, sendRefusal, type V2Kit } from './kit';
import { createSubmit } from './submit';
import { jobJson, type Links, outputJson } from './views';
import type { CloudArea, UploadedInput } from '../cloud/area';
import { buildCatalogue } from '../cloud/catalogue';
import { JobBoard } from '../cloud/jobs';
import { FileNamer } from '../cloud/run';
import type { AreaContext } from '../shared/context';
import { type Account, bearerToken, sendJson, type SimRequest } from '../shared/core';

/** What tests read and steer of the v2 server (`sim.v2`). */
export interface V2View {
	/** Job id → the v2 view of the job (status, progress, outputs, error...). */
	readonly jobs: ReadonlyMap<string, V2Job>;
	/** Asset id → record (uploads and outputs), deleted ones gone. */
	readonly assets: ReadonlyMap<string, AssetRecord>;
	/** Every exchange of the v2 host, oldest first (exchanges.ts). */
	readonly exchanges: readonly V2Exchange[];
	/** Event streams open now. */
	openStreams(): number;
	/** Makes a job one "submitted from the editor": GET .../workflow answers `format: save` with this UI workflow. */
	markFromEditor(jobId: string, uiWorkflow: Record<string, unknown>): void;
	/** The job passes its retention: it and its outputs answer 404 from now on. */
	passRetention(jobId: string): void;
}

export interface V2Area extends CloudArea {
	v2: V2View;
}

export function createV2Area(ctx: AreaContext): V2Area {
	const o = ctx.options.v2;
	const base = `${o.mountPrefix}/api/v2`;
	const origin = () => new URL(ctx.urls().baseUrl).origin;
	const links: Links = {
		job: (id, tail) => `${o.mountPrefix ? '' : origin()}${base}/jobs/${id}${tail}`,
		content: (record) =>
			isHosted(kit)
				? { url: ctx.storage.signedUrl(record.key), expiresAt: Date.now() + ctx.options.signedUrlTtlMs }
				: { url: `${origin()}${base}/assets/${record.id}/content`, expiresAt: Date.now() + ctx.options.signedUrlTtlMs },
	};
	const assets = new AssetBook(ctx.storage);
	const book: V2JobBook = new V2JobBook(assets, (accountId) => board.pendingOf(accountId));
	const board = new JobBoard((id) => ctx.accounts.find((a) => a.id === id), {
		emit: (accountId, message, job) => book.hear(accountId, message, job),
		storage: ctx.storage,
		options: ctx.options,
		catalogue: buildCatalogue(),
		names: new FileNamer(),
		log: (line) => ctx.log(line),
		otherJobMessages: false,
	});
	book.board = board;
	const kit: V2Kit = { ctx, assets, book, board, links, surface: o.surface };
	const streams = new EventStreams(book, (e: JobEvent) => eventData(e, links));
	const submit = createSubmit(kit);
	const exchanges: V2Exchange[] = [];
	const reads = new Map<string, number[]>();

	/** The caller: a known bearer key on cloud and deployment; on self-hosted, the token when one is set, else anyone. */
	function caller(req: SimRequest): Account | undefined {
		const token = bearerToken(req);
		if (isHosted(kit)) return ctx.accountByApiKey(token);
		const wanted = ctx.options.v2.selfHostedToken;
		return wanted === undefined || token === wanted ? ctx.accounts[0] : undefined;
	}

	const authed =
		(handler: AccountHandler) =>
		(req: SimRequest, res: ServerResponse): void | Promise<void> => {
			const account = caller(req);
			if (!account) {
				const message = req.headers.authorization
					? 'The bearer key is not valid here.'
					: 'Send your API key as Authorization: Bearer <key>.';
				return refuse(res, 401, 'unauthorized', message);
			}
			return handler(req, res, account);
		};

	/** Job reads count against rateLimitAfter within a window of Retry-After seconds; true when refused (answered 429). */
	function rateLimited(res: ServerResponse, account: Account): boolean {
		const limit = ctx.options.v2.rateLimitAfter;
		if (limit === undefined) return false;
		const now = Date.now();
		const recent = (reads.get(account.id) ?? []).filter((t) => t > now - Math.max(1, retryAfter(kit)) * 1000);
		if (recent.length >= limit) {
			sendRefusal(res, {
				status: 429,
				code: 'rate_limited',
				message: 'Too many requests: wait Retry-After seconds.',
				retryAfter: retryAfter(kit),
			});
			return true;
		}
		reads.set(account.id, [...recent, now]);
		return false;
	}

	/** A job read: the caller's retained job, after the rate limit; answered (429, 404) when there is none to read. */
	const jobRead = (then: (job: V2Job, res: ServerResponse) => void) =>
		authed((req, res, account) => {
			if (rateLimited(res, account)) return;
			const job = book.get(account.id, req.params.id);
			if (!job) return refuse(res, 404, 'not_found', `No job with id ${req.params.id}.`);
			then(job, res);
		});

	const r = ctx.cloudRouter;
	const uploadKeys = registerAssetRoutes(kit, base, authed);
	r.add(
		'POST',
		`${base}/jobs`,
		authed((req, res, account) => submit(req, res, account)),
	);
	r.add(
		'GET',
		`${base}/jobs/:id`,
		jobRead((job, res) => sendJson(res, 200, jobJson(job, links, kit.surface === 'deployment' ? logsOf(job) : undefined))),
	);
	r.add(
		'GET',
		`${base}/jobs/:id/workflow`,
		jobRead((job, res) =>
			sendJson(res, 200, job.savedWorkflow ? { workflow: job.savedWorkflow, format: 'save' } : { workflow: job.workflow, format: 'api' }),
		),
	);
	r.add(
		'GET',
		`${base}/jobs/:id/events`,
		authed((req, res, account) => openStream(req, res, account)),
	);
	r.add(
		'POST',
		`${base}/jobs/:id/cancel`,
		authed((req, res, account) => {
			const job = book.get(account.id, req.params.id);
			if (!job) return refuse(res, 404, 'not_found', `No job with id ${req.params.id}.`);
			book.cancel(job);
			sendJson(res, 200, jobJson(job, links));
		}),
	);

	function openStream(req: SimRequest, res: ServerResponse, account: Account): void {
		if (ctx.options.v2.events === 'not-implemented') {
			return refuse(res, 501, 'not_implemented', 'This server does not stream events yet: poll GET /api/v2/jobs/{id} instead.');
		}
		const job = book.get(account.id, req.params.id);
		if (!job) return refuse(res, 404, 'not_found', `No job with id ${req.params.id}.`);
		const max = ctx.options.v2.maxStreams;
		if (max !== undefined && streams.openFor(account.id) >= max) {
			const message = `You already have ${max} event streams open, the most allowed: close one, or poll GET /api/v2/jobs/{id}.`;
			return sendRefusal(res, { status: 429, code: 'too_many_streams', message, retryAfter: retryAfter(kit) });
		}
		// The one-shot fault, or a chaos run's random cut (after the first event, as the fault does).
		const drop = ctx.faults.v2DropStream ?? (ctx.faults.chaos?.roll('dropStream') ? { afterEvents: 1 } : undefined);
		delete ctx.faults.v2DropStream;
		streams.open(res, job, drop?.afterEvents);
	}

	/** Every request is recorded; one outside the base or on no route gets the contract's 404. */
	function admits(req: SimRequest, res: ServerResponse): boolean {
		recordExchange(req, res, exchanges);
		const known = req.path.startsWith(`${base}/`) && r.match(req.method, req.path);
		if (known && known !== 'method') return true;
		refuse(res, 404, 'not_found', `No route for ${req.method} ${req.path}.`);
		return false;
	}

	const view: V2View = {
		jobs: book.jobs,
		assets: assets.records,
		exchanges,
		openStreams: () => streams.count(),
		markFromEditor(jobId, uiWorkflow) {
			const job = book.jobs.get(jobId);
			if (job) job.savedWorkflow = uiWorkflow;
		},
		passRetention(jobId) {
			const job = book.jobs.get(jobId);
			if (job) book.passRetention(job);
		},
	};

	const uploads: UploadedInput[] = [];
	return {
		admits,
		attach: () => undefined,
		reset() {
			streams.closeAll();
			board.reset();
			book.reset();
			assets.reset();
			uploadKeys.reset();
			submit.reset();
			reads.clear();
			exchanges.length = 0;
		},
		async close() {
			streams.closeAll();
			board.reset();
		},
		jobs: board.jobs,
		failNextJob: (failure) => board.failNextJob(failure),
		setOutputSize(bytes) {
			board.outputSize = bytes;
		},
		openSockets: () => 0,
		wsHandshakes: [],
		uploads,
		v2: view,
	};
}

/** An event's data: the job object for `status`, the Output object for `output`, the snapshot itself otherwise. */
function eventData(e: JobEvent, links: Links): unknown {
	if (e.event === 'status') return jobJson(e.job, links);
	if (e.event === 'output') {
		const { nodeId, asset } = e.data as { nodeId: string; asset: AssetRecord };
		return outputJson(nodeId, asset, links);
	}
	return e.data;
}

/** A deployment's captured log of a finished job (absent before it finishes). */
function logsOf(job: V2Job): { text: string; capturedAt: number } | undefined {
	if (!isFinished(job)) return undefined;
	const end = job.error ? `!!! Exception during processing !!! ${job.error.message}` : `Prompt executed (${job.status})`;
	return { text: `got prompt\n${end}\n`, capturedAt: job.completedAt ?? Date.now() };
}
