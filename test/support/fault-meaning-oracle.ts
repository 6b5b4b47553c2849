/**
 * The fault replay's oracles of meaning (issue 43, DESIGN.md "Answers are about something"),
 * judged beside time and size on every run of the fault replay (test/engine/sweeps/fault-replay/judge.ts):
 * - take_without_audio: a music take announced by its title whose audio never comes is no success;
 * - answer_about_another: no success built from an answer about another id (an item that is not
 *   an error, not "unknown", not still running, that holds the foreign id, or that came from that
 *   answer without asking again);
 * - listing_repeats_entity, listing_over_bound: a listing lists no entity twice, and keeps to its
 *   Limit and to what the clean run listed;
 * - picker_over_bound: one call of a picker makes at most PICKER_REQUESTS requests, and ends;
 * - credential_passes_wrong_answer: a 200 that is not the service's answer does not pass a credential;
 * - followed_foreign_job, acted_on_foreign_job: a lost submit's lookup follows no job tagged for
 *   another execution, workflow or install, and Cancel Jobs of an Execution leaves such a job;
 * - extra_job, failed_item_unnamed_job: a fault on a submit leaves no more jobs at the service
 *   than the clean run, and an item that failed after a submit names its job or says it looked;
 * - failed_by_429: a 429 with Retry-After fails no item whose bounds allow the wait, and an item
 *   whose bounds do not (the sweep's read limit leaves 0.8 s for a wait) fails saying the service
 *   asked to wait, without waiting;
 * - outputs_of_another_job: no item gets the outputs of a job the socket's faults named.
 * (open_after_stop, the connections still open a second after a stop, is judged in the test.)
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Simulator } from '../../simulator/server';
import { FOREIGN_LOOKALIKE, type PathOutcome, type SweepPath } from './fault-paths';
import type { Exchange, Fault } from './fault-proxy';

/** What a `retry-after` fault asks to wait (its Retry-After of 0 still waits the retry table's first pause, shortened in the sweep). */
export const retryAfterMs = (fault: Fault): number => (fault.kind === 'retry-after' ? fault.seconds * 1000 : 0);
/** Room for a wait the service asks, under the sweep's limits: its read limit less one idle limit. */
export const SWEEP_WAIT_ROOM_MS = 800;
/** A stopped run's requests end within this. */
export const STOP_GRACE_MS = 1_000;
/** Requests one call of a picker may make (a page per scroll; a few more while a filter finds nothing). */
export const PICKER_REQUESTS = 10;

/** What the meaning oracles need of a run besides its outcome. */
export interface MeaningRun {
	outcome?: PathOutcome;
	overdue?: boolean;
	log: Exchange[];
	foreign?: string;
	/** Exchanges still open at the proxy STOP_GRACE_MS after a stop fault held its request. */
	openAfterStop?: Exchange[];
	/** Jobs and tasks the service holds that the run made. */
	jobs: string[];
	/** The fault as made (a socket fault with the foreign job it named). */
	fault?: Fault;
	/** WebSocket upgrades of the run. */
	upgrades: number;
}

export interface MeaningClean {
	/** Items without error. */
	settled: number;
	/** The clean run failed (an error, or an item with one). */
	failed: boolean;
	jobs: number;
}

/** The ids of every job and task the service holds. */
export function jobsOf(sim: Simulator): string[] {
	const music = Array.from({ length: sim.proxy.musicStats.started }, (_, at) => `music-${at}`);
	// v2 (issue 45): the jobs of the v2 view, each once (they run on the cloud's engine too).
	const v2 = (sim as { v2?: { jobs: ReadonlyMap<string, unknown> } }).v2;
	const jobs = new Set([...sim.cloud.jobs.keys(), ...(v2?.jobs.keys() ?? [])]);
	return [...jobs, ...sim.proxy.imageTasks.keys(), ...sim.proxy.videoTasks.keys(), ...music];
}

/** "Still running" or a status it cannot read is no success; nor is an item that says in words its files are missing. */
export const unsettled = (json: IDataObject): boolean =>
	[json.status, json.state].some((word) => /^(running|pending|unknown|in_progress)$/i.test(String(word ?? ''))) ||
	json.files_error !== undefined ||
	json.outputs_unknown !== undefined;

// An `error` of null is no failure.
const settled = (item: INodeExecutionData) => item.json.error == null && !unsettled(item.json);
const holds = (item: INodeExecutionData, text: string) => JSON.stringify({ json: item.json, binary: item.binary }).includes(text);
const clip = (value: unknown) => JSON.stringify(value).slice(0, 200);

/** A cloud job's submit: the one a lost answer's lookup exists for (media tasks have no listing to look in). */
const isSubmitExchange = (exchange: Exchange | undefined) => exchange?.method === 'POST' && /\/(api\/)?prompt$/.test(exchange.path);
/** Faults after which a submit's answer may be lost (not a clear answer such as a redirect or a refusal). */
const LOSES_ANSWER = /^(stall-|cut-body|drop|bad-gateway)/;

/** The entities a listing's item names: a registry node, a picker's choice, a job of the history or the queue. */
function entitiesOf(json: IDataObject): string[] {
	const queued = [json.running, json.pending].flatMap((list) => (Array.isArray(list) ? list : []));
	if (queued.length > 0) return queued.map((entry) => String((entry as IDataObject).prompt_id));
	const id = json.id ?? json.prompt_id ?? json.value;
	return id === undefined ? [] : [String(id)];
}

const LISTING = /getAll|getHistory|queue get |picker/;

/** How long the path's item may wait by its own settings (Max Wait, Tool Wait); undefined: no such bound. */
function waitBoundMs(path: SweepPath): number | undefined {
	const options = (path.parameters.waitOptions ?? {}) as IDataObject;
	if (path.kind === 'tool' && typeof path.parameters.toolWaitSeconds === 'number') return path.parameters.toolWaitSeconds * 1000;
	return typeof options.maxWaitMinutes === 'number' && path.parameters.waitMode !== 'none' ? options.maxWaitMinutes * 60_000 : undefined;
}

interface Judged {
	path: SweepPath;
	run: MeaningRun;
	clean?: MeaningClean & { elapsed: number };
	armed?: { index: number; fault: Fault };
	/** The run's items succeeded (the test's judgement: no error, none unsettled). */
	success: boolean;
	rule: (name: string, text: string) => void;
}

/** Every oracle of meaning, on one run. */
export function judgeMeaning(judged: Judged): void {
	judgeIdentity(judged);
	judgeListing(judged);
	judgeScope(judged);
	judgeJobs(judged);
	judgeSocket(judged);
}

function judgeIdentity({ path, run, armed, success, rule }: Judged): void {
	const faulted = armed ? run.log.find((exchange) => exchange.index === armed.index && exchange.fault !== undefined) : undefined;
	const items = run.outcome?.items ?? [];
	if (faulted?.foreignId) {
		const foreign = faulted.foreignId;
		const holding = items.filter((item) => settled(item) && holds(item, foreign));
		// Asked again: a later answer of the same endpoint came whole (the next poll).
		const askedAgain = run.log.some(
			(e) =>
				e.index > faulted.index && e.method === faulted.method && e.path === faulted.path && e.fault === undefined && (e.status ?? 0) < 300,
		);
		if (holding.length > 0 || (success && !askedAgain))
			rule(
				'answer_about_another',
				`request ${faulted.index} ${faulted.method} ${faulted.path} was answered about ${foreign}, and the item succeeded${holding.length > 0 ? ' holding that id' : ''}: ${clip(items[0]?.json)}`,
			);
	}
	const kind = armed?.fault.kind;
	// A take announced by its title whose audio never came is no take (a success with no bytes of it).
	const silentTakes = kind === 'take-without-audio' && faulted ? items.filter((item) => settled(item) && item.json.audio_bytes === 0) : [];
	if (silentTakes.length > 0)
		rule(
			'take_without_audio',
			`${silentTakes.length} take(s) whose audio never came passed on as a success: ${clip(silentTakes[0]!.json)}`,
		);
	if (path.kind === 'credential' && (kind === 'html-200' || kind === 'wrong-shape-200') && faulted && items[0]?.json.status === 'OK')
		rule('credential_passes_wrong_answer', `the credential test passed on ${faulted.fault} (${faulted.method} ${faulted.path})`);
}

function judgeListing({ path, run, clean, armed, rule }: Judged): void {
	const items = (run.outcome?.items ?? []).filter(settled);
	if (path.editor?.listSearch) {
		const requests = run.log.length;
		if (requests > PICKER_REQUESTS || run.overdue)
			rule(
				'picker_over_bound',
				`one call of the picker made ${requests} requests (bound ${PICKER_REQUESTS})${run.overdue ? ' and had not ended when it was stopped' : ''}`,
			);
	}
	if (!LISTING.test(path.name)) return;
	const ids = items.flatMap((item) => entitiesOf(item.json));
	const repeated = [...new Set(ids.filter((id, at) => ids.indexOf(id) !== at))];
	if (repeated.length > 0)
		rule(
			'listing_repeats_entity',
			`${repeated.length} entities listed more than once (${repeated.slice(0, 3).join(', ')}), ${ids.length} in all`,
		);
	const limit = path.parameters.returnAll === false ? Number(path.parameters.limit) : undefined;
	if (limit !== undefined && ids.length > limit) rule('listing_over_bound', `${ids.length} entities listed, Limit ${limit}`);
	const paged = armed?.fault.kind === 'repeat-page' || armed?.fault.kind === 'ignore-page';
	if (paged && clean && items.length > clean.settled)
		rule('listing_over_bound', `${items.length} entities listed after a repeated page, ${clean.settled} in the clean run`);
}

function judgeScope({ path, run, rule }: Judged): void {
	if (!path.scope || !run.foreign) return;
	const foreign = run.foreign;
	const items = run.outcome?.items ?? [];
	const differs = `differs from this run's own only in its ${path.scope.differs} id`;
	if (path.scope.by === 'lostSubmit') {
		const asked = run.log.filter((e) => `${e.path} ${e.requestBody}`.includes(FOREIGN_LOOKALIKE));
		if (asked.length > 0 || items.some((item) => holds(item, foreign)))
			rule(
				'followed_foreign_job',
				`the lost submit's lookup took job ${foreign}, whose tag ${differs}: ${asked.map((e) => `${e.method} ${e.path}`).join(', ') || clip(items[0]?.json)}`,
			);
		return;
	}
	// Cancel Jobs of an Execution may repeat the execution it was given; the foreign job's id it may not name.
	const touching = run.log.filter((e) => e.method !== 'GET' && e.requestBody.includes(foreign));
	if (touching.length > 0 || items.some((item) => holds(item, foreign)))
		rule(
			'acted_on_foreign_job',
			`Cancel Jobs of an Execution ${touching.length > 0 ? 'cancelled' : 'listed'} job ${foreign}, which ${differs}`,
		);
}

function judgeJobs({ path, run, clean, armed, rule }: Judged): void {
	if (!armed || !clean || !run.outcome) return;
	const faulted = run.log.find((exchange) => exchange.index === armed.index);
	if (run.jobs.length > clean.jobs)
		rule('extra_job', `the service holds ${run.jobs.length} jobs or tasks the run made, the clean run ${clean.jobs}`);
	const failures = run.outcome.items.filter((item) => item.json.error !== undefined);
	const words = run.outcome.words;
	const made = run.jobs.filter((id) => !id.startsWith('music-'));
	// A stopped execution's item says it was stopped: n8n's cancel, not a failure of the submit.
	const stopped = armed.fault.kind === 'stop';
	// A 4xx status that reached the node is the service's refusal, taken at its word (a stalled body after it included).
	const refused = 'status' in armed.fault && armed.fault.status >= 400 && armed.fault.status < 500;
	const lost = LOSES_ANSWER.test(armed.fault.kind) && !refused && !(armed.fault.kind === 'bad-gateway' && !armed.fault.forward);
	if (isSubmitExchange(faulted) && lost && !stopped && made.length > 0 && (failures.length > 0 || run.outcome.error !== undefined))
		if (!made.some((id) => words.includes(id)) && !/\blook|may have|might have/i.test(words))
			rule(
				'failed_item_unnamed_job',
				`the item failed after its job ${made[0]} was made, naming neither the job nor a look for it: ${words.slice(0, 200)}`,
			);
	if (armed.fault.kind !== 'retry-after' || clean.failed || path.kind === 'trigger') return;
	const askedMs = retryAfterMs(armed.fault);
	const bound = waitBoundMs(path);
	// The sweep's read limit (1.2 s) leaves 0.8 s for a wait after its last try's idle limit: 1 s never fits.
	const fits = askedMs < SWEEP_WAIT_ROOM_MS && (bound === undefined || clean.elapsed + askedMs <= bound);
	const failed = run.outcome.error !== undefined || failures.length > 0;
	if (failed && (fits || !/asked to wait \d+(\.\d+)? s\b/.test(words)))
		rule(
			'failed_by_429',
			`request ${armed.index} ${faulted?.method} ${faulted?.path} was answered 429 with Retry-After: ${armed.fault.seconds}, and the item failed${fits ? '' : ' without saying the service asked to wait'}: ${words.trim().slice(0, 200)}`,
		);
}

function judgeSocket({ run, rule }: Judged): void {
	const fault = run.fault;
	if (!fault || !fault.kind.startsWith('socket-')) return;
	const marks =
		fault.kind === 'socket-foreign-prompt'
			? [fault.promptId, fault.filename]
			: fault.kind === 'socket-flood'
				? ['flood_', '0f100d00-']
				: [];
	const taking = (run.outcome?.items ?? []).filter((item) => marks.some((mark) => holds(item, mark)));
	if (taking.length > 0)
		rule('outputs_of_another_job', `${taking.length} item(s) got the outputs of another job: ${clip(taking[0]!.json)}`);
}
