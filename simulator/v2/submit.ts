/**
 * v2: POST /api/v2/jobs. The API-format workflow is taken verbatim: its core/ASSET references are
 * resolved to the caller's assets, then the cloud engine's graph checks run and the engine queues
 * the job. Idempotency-Key is single-use: claimed when the request reaches submission, released
 * when the submission definitely fails without a job (a refusal of any kind), kept when a job was
 * made, even if its answer is lost (the client cannot know, so a retry must not run it twice).
 */
import type { ServerResponse } from 'node:http';

import { isHosted, type Refusal, retryAfter, sendRefusal, type V2Kit } from './kit';
import { isFinished } from './jobs';
import { jobJson } from './views';
import { buildCatalogue } from '../cloud/catalogue';
import { checkSubmission, type Graph, type NodeErrors } from '../cloud/graph';
import { type Account, isPlainObject, sendJson, type SimRequest } from '../shared/core';

/** A checked submission: the graph the engine runs, its order, the workflow as sent, whether partner nodes may run. */
interface Accepted {
	graph: Graph;
	order: string[];
	workflow: Record<string, unknown>;
	partnerAuthorised: boolean;
}

/** Fields the contract reserves for later and refuses today. */
const RESERVED = ['webhook_url', 'inputs'];

const looksLikeUiExport = (v: Record<string, unknown>) => Array.isArray(v.nodes) && Array.isArray(v.links);

/** The per-node errors of the engine's check as `{node id: [{field, reason, message}]}` (the contract's example shape). */
function nodeErrorsOf(errors: Record<string, NodeErrors>): Record<string, unknown[]> {
	return Object.fromEntries(
		Object.entries(errors).map(([id, e]) => [
			id,
			e.errors.map((err) => ({
				field: err.extra_info.input_name ?? err.details,
				reason: err.type,
				message: `${err.message}: ${err.details}`,
			})),
		]),
	);
}

/** extra_data is closed: only api_key_comfy_org, a string. */
function extraDataProblem(extra: unknown): string | undefined {
	if (extra === undefined) return undefined;
	if (!isPlainObject(extra)) return 'extra_data must be an object.';
	const unknown = Object.keys(extra).filter((k) => k !== 'api_key_comfy_org');
	if (unknown.length > 0) return `extra_data accepts only api_key_comfy_org; remove ${unknown.join(', ')}.`;
	if (extra.api_key_comfy_org !== undefined && typeof extra.api_key_comfy_org !== 'string')
		return 'extra_data.api_key_comfy_org must be a string.';
	return undefined;
}

/** The submit handler, and reset() that forgets claimed keys and restarts a deployment's warm-up. */
export type Submit = ((req: SimRequest, res: ServerResponse, account: Account) => void) & { reset(): void };

export function createSubmit(kit: V2Kit): Submit {
	const claims = new Set<string>();
	let readySince = Date.now();

	/** Replaces every core/ASSET reference of the workflow's inputs by the asset's file name; a refusal when one is not the caller's. */
	function resolveAssets(
		workflow: Record<string, unknown>,
		account: Account,
	): { graph: Record<string, unknown>; names: string[] } | Refusal {
		const graph: Record<string, unknown> = {};
		const names: string[] = [];
		for (const [id, node] of Object.entries(workflow)) {
			if (!isPlainObject(node) || !isPlainObject(node.inputs)) {
				graph[id] = node;
				continue;
			}
			const inputs: Record<string, unknown> = {};
			for (const [name, value] of Object.entries(node.inputs)) {
				if (!isPlainObject(value) || value.__type !== 'core/ASSET') {
					inputs[name] = value;
					continue;
				}
				const assetId = isPlainObject(value.info) && typeof value.info.id === 'string' ? value.info.id : undefined;
				const record = assetId === undefined ? undefined : kit.assets.get(account.id, assetId);
				if (!record) {
					const what =
						assetId === undefined ? 'a core/ASSET reference without info.id' : `asset ${assetId}, which does not exist or is not yours`;
					const message = `Node ${id} input '${name}' names ${what}: upload the file with POST /api/v2/assets and use its id.`;
					return { status: 422, code: 'missing_asset', message, details: { node_id: id, input: name } };
				}
				inputs[name] = record.filePath ?? record.id;
				names.push(String(inputs[name]));
			}
			graph[id] = { ...node, inputs };
		}
		return { graph, names };
	}

	/** The body's checks, in the contract's words: the accepted submission or the refusal. */
	function check(body: unknown, account: Account): Accepted | Refusal {
		if (!isPlainObject(body)) return { status: 422, code: 'invalid_request', message: 'The body must be a JSON object with a workflow.' };
		for (const field of RESERVED) {
			// invalid_workflow, as the proxy answers (tests/test_endpoints.py, test_reserved_fields_rejected).
			if (field in body)
				return { status: 422, code: 'invalid_workflow', message: `${field} is reserved for a later version and refused today: remove it.` };
		}
		const extraProblem = extraDataProblem(body.extra_data);
		if (extraProblem) return { status: 422, code: 'invalid_request', message: extraProblem };
		const workflow = body.workflow;
		if (!isPlainObject(workflow))
			return { status: 422, code: 'invalid_workflow', message: 'workflow is required: the API-format workflow object.' };
		if (looksLikeUiExport(workflow)) {
			const message = "workflow is a UI-format export (it has 'nodes' and 'links'): export the workflow in API format and send that.";
			return { status: 422, code: 'workflow_format_ui', message };
		}
		const resolved = resolveAssets(workflow, account);
		if ('status' in resolved) return resolved;
		const checked = checkSubmission({ prompt: resolved.graph }, buildCatalogue(resolved.names));
		if (!checked.ok) {
			const node = /^Node ID '#(.+)'$/.exec(checked.details)?.[1];
			const nodeErrors = node
				? { [node]: [{ field: 'class_type', reason: checked.type, message: checked.message }] }
				: nodeErrorsOf(checked.nodeErrors);
			return { status: 422, code: 'invalid_workflow', message: checked.message, details: { node_errors: nodeErrors } };
		}
		const key = isPlainObject(body.extra_data) ? body.extra_data.api_key_comfy_org : undefined;
		return { graph: checked.graph, order: checked.order, workflow, partnerAuthorised: key === account.apiKey };
	}

	/** The platform's refusals once the body is good: a deployment still starting, no subscription, no credits, a full queue. */
	function platformRefusal(account: Account): Refusal | undefined {
		const o = kit.ctx.options.v2;
		if (kit.surface === 'deployment' && o.notReadyForMs !== undefined && Date.now() < readySince + o.notReadyForMs) {
			return {
				status: 429,
				code: 'deployment_not_ready',
				message: 'The deployment is still starting: retry after Retry-After.',
				retryAfter: retryAfter(kit),
			};
		}
		if (isHosted(kit) && account.credits <= 0) {
			return { status: 402, code: 'insufficient_credits', message: 'Your account has no credits left: add credits to run workflows.' };
		}
		const unfinished = [...kit.book.jobs.values()].filter((j) => j.accountId === account.id && !isFinished(j)).length;
		if (o.queueLimit !== undefined && unfinished >= o.queueLimit) {
			return {
				status: 429,
				code: 'queue_full',
				message: `${unfinished} of your jobs are unfinished, the most the queue takes: retry later.`,
				retryAfter: retryAfter(kit),
			};
		}
		return undefined;
	}

	function refusalOf(req: SimRequest, account: Account): Accepted | Refusal {
		if (isHosted(kit) && !account.subscriptionActive) {
			return { status: 403, code: 'forbidden', message: 'Your subscription is inactive: running workflows needs an active subscription.' };
		}
		let body: unknown;
		try {
			body = JSON.parse(req.rawBody.toString('utf8'));
		} catch {
			return { status: 422, code: 'invalid_request', message: 'The body is not valid JSON.' };
		}
		const accepted = check(body, account);
		return 'status' in accepted ? accepted : (platformRefusal(account) ?? accepted);
	}

	function submit(req: SimRequest, res: ServerResponse, account: Account): void {
		const header = req.headers['idempotency-key'];
		const key = typeof header === 'string' && header !== '' ? `${account.id}|${header}` : undefined;
		if (key && claims.has(key)) {
			const message = 'This Idempotency-Key was already used: keys are single-use. Look the job up instead of submitting again.';
			return sendRefusal(res, { status: 422, code: 'idempotency_key_reuse', message });
		}
		if (key) claims.add(key);
		const outcome = refusalOf(req, account);
		if ('status' in outcome) {
			if (key) claims.delete(key); // a definite failure: no job was made
			return sendRefusal(res, outcome);
		}
		const job = run(outcome, account);
		const lost = kit.ctx.faults.v2SubmitLost;
		if (lost && lost.count > 0) {
			if (--lost.count === 0) delete kit.ctx.faults.v2SubmitLost;
			if (lost.as === 'reset') return void res.destroy();
			const message = 'An unexpected error occurred while processing the request.';
			return sendRefusal(res, { status: 500, code: 'upstream_error', message });
		}
		sendJson(res, 201, jobJson(job, kit.links));
	}

	function run(accepted: Accepted, account: Account) {
		const { faults } = kit.ctx;
		// The one-shot fault, or a chaos run's random failure at the last node.
		const fail =
			faults.v2FailNextJob ?? (faults.chaos?.roll('executionError') ? { message: 'Out of GPU memory (injected fault).' } : undefined);
		if (fail) {
			delete faults.v2FailNextJob;
			kit.board.failNextJob({
				exception_type: 'RuntimeError',
				exception_message: fail.message ?? 'The node failed (injected fault).',
				nodeId: fail.nodeId,
			});
		}
		const expire = faults.v2ExpireNextJob;
		delete faults.v2ExpireNextJob;
		kit.book.expect(accepted.workflow, expire?.afterNodes);
		const engine = kit.board.submit({
			account,
			graph: accepted.graph,
			order: accepted.order,
			extraData: {},
			partnerAuthorised: accepted.partnerAuthorised,
		});
		return kit.book.adopt(engine);
	}

	return Object.assign(submit, {
		reset() {
			claims.clear();
			readySince = Date.now();
		},
	});
}
