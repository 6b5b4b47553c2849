/**
 * The replay's oracle (the rules are listed in sweep.ts): every rule a run broke, in words, each
 * counted in the file's figures. The rules of meaning are test/support/fault-meaning-oracle.ts's.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import type { PathOutcome, SweepPath, World } from '../../../support/fault-paths';
import { answerIsBroken, type Fault } from '../../../support/fault-proxy';
import { judgeMeaning, retryAfterMs, STOP_GRACE_MS, unsettled } from '../../../support/fault-meaning-oracle';
import { echoForms } from '../../../support/hostile-service';
import { judgeShown } from '../../../support/hostile-structures';
import { linksNotHttp, outputOwners, outputsOfAnotherJob } from '../../../support/v2-item-oracle';
import { figures } from './figures';
import { bytesOf, type Clean, type Run } from './run-once';
import { isSubmit, KIB64, LOST_SUBMIT_MS, MAX_WAIT_MS, MS, READ_MS, SCALED_RETRY, TOLERANCE_MS } from './settings';

type Rule = (name: string, text: string) => void;

/** One run to judge: its path, the run, its clean run (undefined: this is the clean run), the fault armed. */
interface Case {
	world: World;
	path: SweepPath;
	run: Run & { foreign?: string };
	clean?: Clean;
	armed?: { index: number; fault: Fault };
	rule: Rule;
}

/** The oracle: every rule a run broke, in words (empty: none). */
export async function judge(
	world: World,
	path: SweepPath,
	run: Run & { foreign?: string },
	clean: Clean | undefined,
	armed?: { index: number; fault: Fault },
): Promise<string[]> {
	const broken: string[] = [];
	const rule = (name: string, text: string) => {
		figures.by_rule[name] = (figures.by_rule[name] ?? 0) + 1;
		broken.push(`${name}: ${text}`);
	};
	const judged: Case = { world, path, run, clean, armed, rule };
	judgeTime(judged);
	judgeSilence(run, rule);
	if (run.openAfterStop && run.openAfterStop.length > 0)
		rule(
			'open_after_stop',
			`${run.openAfterStop.length} request(s) still open ${STOP_GRACE_MS} ms after n8n stopped the run: ${run.openAfterStop.map((e) => `${e.index} ${e.method} ${e.path}`).join(', ')}`,
		);
	if (path.flavour === 'v2') judgeV2(run, rule);
	const outcome = run.outcome;
	if (!outcome) {
		if (path.editor?.listSearch) judgeMeaning({ path, run, clean, armed, success: false, rule });
		return broken;
	}
	judgeShownText(judged, outcome);
	judgeSizes(judged, outcome);
	const success = judgeSuccess(judged, outcome);
	judgeShownValues(judged, outcome);
	judgeMeaning({ path, run, clean, armed, success, rule });
	const flows = outcome.trigger;
	const firstHistoryRead = run.log.find((exchange) => exchange.method === 'GET' && exchange.path.startsWith('/api/history'));
	const faulted = faultedOf(run, armed);
	if (flows) judgeFlows(flows, outcome.items, armed, faulted !== undefined && faulted === firstHistoryRead, rule);
	judgeForeign(judged, outcome);
	if (clean && armed) await judgeFiles(outcome, clean, rule);
	figures.defects_found += broken.length;
	if (process.env.FAULT_DEBUG && broken.length > 0) process.stderr.write(debugLines(broken, run));
	return broken;
}

/** The exchange the armed fault struck (undefined: none, or a clean run). */
const faultedOf = (run: Run, armed: Case['armed']) =>
	armed ? run.log.find((exchange) => exchange.index === armed.index && exchange.fault !== undefined) : undefined;

/** The item ends within its bound: the clean run's time, a read limit, Max Wait, the retry pauses, and what the fault asks. */
function judgeTime({ path, run, clean, armed, rule }: Case): void {
	// A lost submit's looks: after a fault on a submit, or where the path loses the submit itself.
	const lookups = (armed && isSubmit(clean?.log[armed.index])) || path.scope?.by === 'lostSubmit' ? LOST_SUBMIT_MS : 0;
	const waitAsked = armed ? retryAfterMs(armed.fault) : 0;
	// A trigger listens by design: its clean run for its looks (listensMs); a replay one Poll Every
	// more, as a job a faulted read missed is found by the next read.
	const listening = clean ? (path.pollMs ?? 0) : (path.listensMs ?? 0);
	const bound =
		(clean?.elapsed ?? 0) + READ_MS + MAX_WAIT_MS + SCALED_RETRY.reduce((a, b) => a + b, 0) * 1.2 + lookups + waitAsked + listening + 1_000;
	if (run.overdue || run.elapsed > bound)
		rule(
			'overdue_items',
			`the item did not end within ${Math.round(bound)} ms (${run.overdue ? 'still running, cancelled' : `${run.elapsed} ms`})`,
		);
}

/**
 * Silence: each request ends within the request limit, a read with its retries within the read limit.
 * One read is its attempts at one endpoint, each begun within a retry pause of the last one's end
 * with no other request between them; a request after a longer pause (the next poll), or after
 * another request (a clean-up after Max Wait), is another read.
 */
function judgeSilence(run: Run, rule: Rule): void {
	const reads: Array<{ endpoint: string; waited: number; endedAt: number; index: number }> = [];
	const current = new Map<string, (typeof reads)[number]>();
	// A retry follows its pause (jitter included) at once; 60 ms covers the client's own steps between the two.
	const retryGapMs = Math.max(...SCALED_RETRY) * 1.2 + 60;
	for (const exchange of run.log) {
		if (exchange.silentFrom === undefined) continue;
		// The client gave up when it closed the connection, or moved on (its next request), or its item ended.
		const movedOn = run.log.find((later) => later.index > exchange.index)?.arrivedAt;
		const endedAt = Math.min(exchange.gaveUpAt ?? Infinity, movedOn ?? Infinity, run.endedAt);
		const waited = endedAt - exchange.silentFrom;
		const endpoint = `${exchange.method} ${exchange.path}`;
		const read = current.get(endpoint);
		const between = read ? run.log.filter((other) => other.index > read.index && other.index < exchange.index) : [];
		const retried =
			read && exchange.arrivedAt - read.endedAt <= retryGapMs && between.every((other) => `${other.method} ${other.path}` === endpoint);
		if (read && retried) Object.assign(read, { waited: read.waited + waited, endedAt, index: exchange.index });
		else {
			const fresh = { endpoint, waited, endedAt, index: exchange.index };
			reads.push(fresh);
			current.set(endpoint, fresh);
		}
		if (waited > MS + TOLERANCE_MS)
			rule(
				'silence_over_request_limit',
				`request ${exchange.index} ${endpoint} (${exchange.fault}) waited ${waited} ms in silence (limit ${MS} ms)`,
			);
	}
	for (const { endpoint, waited } of reads)
		if (waited > READ_MS + TOLERANCE_MS)
			rule('silence_over_read_limit', `${endpoint} with its retries waited ${waited} ms in silence (read limit ${READ_MS} ms)`);
}

/**
 * v2's own rules (issue 45): never a second paid job for one item (the run's new jobs in
 * `sim.v2.jobs` at most its one item), never a second asset for one upload, every request
 * the package sent, faults or not, one the contract allows; and of meaning
 * (test/support/v2-item-oracle.ts): every output an item lists is one the answers gave as its
 * job's own, and every link an item shows is an absolute http(s) address.
 */
function judgeV2(run: Run, rule: Rule): void {
	if (run.jobs.length > 1) rule('second_job_for_item', `${run.jobs.length} jobs for one item: ${run.jobs.join(', ')}`);
	if ((run.uploads ?? 0) > 1) rule('second_asset_for_upload', `${run.uploads} assets for one upload`);
	if (run.offContract && run.offContract.length > 0) rule('request_off_contract', run.offContract.slice(0, 3).join('; ').slice(0, 400));
	const items = run.outcome?.items ?? [];
	const owners = outputOwners(run.log.map((exchange) => (exchange.served ?? exchange.answer)?.toString('utf8') ?? ''));
	for (const text of outputsOfAnotherJob(items, owners).slice(0, 3)) rule('output_of_another_job', text);
	for (const text of linksNotHttp(items).slice(0, 3)) rule('link_not_http', text);
}

/** What a user reads (judgeShown: uncaught and raw error texts, secrets in any encoding, path segments). */
function judgeShownText({ world, run, rule }: Case, outcome: PathOutcome): void {
	const secrets = world.secrets.flatMap((secret) => [...Object.values(echoForms(secret)), Buffer.from(secret).toString('hex')]);
	try {
		judgeShown({
			error: outcome.error,
			words: outcome.words,
			output: outcome.items.map((item) => item.json),
			sent: run.log.map((e) => ({ method: e.method, url: e.path })),
			secrets,
		});
	} catch (error) {
		rule('judge_shown', (error as Error).message.split('\n').filter(Boolean).slice(0, 4).join(' ').slice(0, 400));
	}
}

/** Refused input acts on nothing; a 2 MiB text puts no more than 64 KiB into an item. */
function judgeSizes({ path, run, clean, armed, rule }: Case, outcome: PathOutcome): void {
	// Refused input acts on nothing: a read may be needed to judge it (a saved workflow needs the server's node definitions), nothing more.
	// On v2 what v2 cannot serve is refused by name before anything is sent, a read included.
	const acted = run.log.filter((e) => path.flavour === 'v2' || (e.method !== 'GET' && e.method !== 'HEAD'));
	if (path.refused && acted.length > 0)
		rule('sent_for_refused_input', `${acted.length} request(s) sent: ${acted.map((e) => `${e.method} ${e.path}`).join(', ')}`);
	const sizes = outcome.items.map((item) => JSON.stringify(item.json).length);
	const cleanMax = Math.max(0, ...(clean?.sizes ?? []));
	if (armed?.fault.kind === 'long' && sizes.some((size) => size > cleanMax + KIB64))
		rule('service_text_over_64KiB', `an item holds ${Math.max(...sizes)} characters (clean run: ${cleanMax})`);
}

/** An answer that is not what the spec says gives no success unless it was asked again; answers whether the run succeeded. */
function judgeSuccess({ path, run, armed, rule }: Case, outcome: PathOutcome): boolean {
	// "Still running" or a status it cannot read is no success (`unsettled`): the item says it does not know yet.
	const faulted = faultedOf(run, armed);
	// A trigger's flow cannot hold the faulted answer when it started before it came, or when the
	// answer was about another job (a read of one job's status or record names it in its path).
	const flows = outcome.trigger;
	const aboutJob = faulted && /\/api\/jobs?\/([^/]+)/.exec(faulted.path)?.[1];
	const judged =
		flows && faulted
			? outcome.items.filter(
					(item, at) =>
						(flows.startedAt[at] ?? 0) >= faulted.arrivedAt &&
						(aboutJob === undefined || decodeURIComponent(aboutJob) === item.json.prompt_id),
				)
			: outcome.items;
	// An `error` of null is no failure.
	const success =
		outcome.error === undefined && judged.length > 0 && judged.every((item) => item.json.error == null && !unsettled(item.json));
	// A redirect's body is discarded by design: only its Location is the answer.
	if (
		armed &&
		faulted &&
		answerIsBroken(armed.fault, faulted) &&
		// A credential test asks whether the credential is let in, and of the body only what n8n's declarative
		// rules can check (credentials/answer-rules.ts: JSON, the registry's list of nodes): not every broken body fails it.
		(path.kind !== 'credential' || armed.fault.kind === 'cut-body') &&
		faulted.method !== 'HEAD' &&
		!(armed.fault.kind === 'cut-body' && (faulted.status ?? 0) >= 300 && (faulted.status ?? 0) < 400) &&
		// A trigger's queue read says only which jobs still run and whose they are: how a job ended
		// comes from the socket's messages, its status or the history, never from the queue.
		!(flows && /\/queue$/.test(faulted.path)) &&
		success
	) {
		// A later answer of the same host that came whole may be where the success came from (the package read again, by any route).
		const askedAgain = run.log.some(
			(e) => e.index > faulted.index && e.host === faulted.host && e.fault === undefined && (e.status ?? 0) < 300,
		);
		if (!askedAgain)
			rule(
				'success_from_fault',
				`request ${faulted.index} ${faulted.method} ${faulted.path} got "${faulted.fault}" and the item succeeded: ${JSON.stringify(outcome.items[0]?.json).slice(0, 200)}`,
			);
	}
	return success;
}

/** Every address passed on is an absolute http(s) URL; an unknown id is not "completed"; a trigger's memory keeps its size bound. */
function judgeShownValues({ path, rule }: Case, outcome: PathOutcome): void {
	for (const address of outcome.items.flatMap((item) => addressesIn(item.json)))
		if (!goodAddress(address)) rule('address_not_http', `passed on ${JSON.stringify(address.slice(0, 120))}`);
	if (
		path.unknownId &&
		outcome.items.some((item) => item.json.error == null && /^(completed|success|succeeded)$/i.test(String(item.json.status ?? '')))
	)
		rule('success_from_fault', `the unknown id __proto__ answered ${JSON.stringify(outcome.items[0]!.json).slice(0, 200)}`);
	// What a trigger remembers is bounded by size as well as by count (128 KiB of keys), after any fault.
	if ((outcome.rememberedChars ?? 0) > 128 * 1024)
		rule('memory_over_bound', `the trigger remembers ${outcome.rememberedChars} characters of ids in one list`);
}

/** Strings of an item that are addresses: values of address-like keys, and anything with a script-like scheme. */
function addressesIn(value: unknown, key = ''): string[] {
	if (typeof value === 'string')
		return (/url|href|link|location|uri/i.test(key) && /^\s*[a-z][a-z0-9+.-]*:/i.test(value)) ||
			/^\s*(javascript|data|vbscript):/i.test(value)
			? [value]
			: [];
	if (Array.isArray(value)) return value.flatMap((element) => addressesIn(element, key));
	if (value && typeof value === 'object') return Object.entries(value).flatMap(([name, child]) => addressesIn(child, name));
	return [];
}
const goodAddress = (text: string) => {
	if (!/^https?:\/\/[^\s<>"']+$/i.test(text)) return false;
	try {
		return new URL(text).href.length > 0;
	} catch {
		return false;
	}
};

/**
 * The Host Cloud Trigger's own rules: a job starts at most one flow, and no flow starts for a job
 * that is not it; the close ends at once; a job is missed only where docs/host-cloud-trigger.md
 * lets it be, where the trigger could not look: its activation failed in words, or it said so
 * later, or the server stayed silent for the rest of the run (a silence lasts it), or, on a
 * self-hosted server, the fault broke the first read of the history (the next read that succeeds
 * only remembers what has ended by then).
 */
function judgeFlows(
	flows: NonNullable<PathOutcome['trigger']>,
	items: INodeExecutionData[],
	armed: { fault: Fault } | undefined,
	firstHistoryReadFaulted: boolean,
	rule: Rule,
): void {
	const ids = items.map((item) => String(item.json.prompt_id));
	const repeated = [...new Set(ids.filter((id, at) => ids.indexOf(id) !== at))];
	if (repeated.length > 0)
		rule('trigger_repeated_job', `job(s) ${repeated.map((id) => id.slice(0, 80)).join(', ')} started more than one flow`);
	const others = flows.job === undefined ? [] : ids.filter((id) => id !== flows.job);
	if (others.length > 0)
		rule(
			'trigger_flow_not_the_job',
			`flows started for ${others.map((id) => JSON.stringify(id.slice(0, 80))).join(', ')}, not for job ${flows.job}`,
		);
	// A silence lasts the run; a stop closes the trigger before the job.
	const lasting = armed !== undefined && (/^stall-/.test(armed.fault.kind) || armed.fault.kind === 'stop');
	if (flows.job !== undefined && ids.length === 0 && !flows.failed && !lasting && !firstHistoryReadFaulted)
		rule('trigger_missed_job', `job ${flows.job} started no flow, and the trigger said nothing`);
	if (flows.closeMs > MS + TOLERANCE_MS) rule('trigger_close_over_limit', `closing the trigger took ${flows.closeMs} ms`);
}

/** A tool neither lists nor cancels a job it did not start. */
function judgeForeign({ path, run, rule }: Case, outcome: PathOutcome): void {
	if (!run.foreign || path.scope) return;
	// A tool may repeat the ids the caller gave (Cancel Jobs' requested and not_cancelled); nothing else may name them.
	const shown = outcome.items.map(({ json: { not_cancelled: _refused, requested: _asked, ...json } }) => json);
	if (JSON.stringify(shown).includes(run.foreign))
		rule('tool_touched_foreign_job', `the tool listed job ${run.foreign}, which the workflow did not start`);
	const touching = run.log.filter((e) => e.method !== 'GET' && e.requestBody.includes(run.foreign!));
	if (touching.length > 0)
		rule(
			'tool_touched_foreign_job',
			`the tool sent ${touching.map((e) => `${e.method} ${e.path} ${e.requestBody.slice(0, 80)}`).join(', ')} for job ${run.foreign}`,
		);
}

/** No file passed on shorter than served in the clean run, and no more music takes with a hole passed as a success. */
async function judgeFiles(outcome: PathOutcome, clean: Clean, rule: Rule): Promise<void> {
	const bytes = await bytesOf(outcome.items);
	bytes.forEach((fields, at) => {
		if (outcome.items[at]?.json.error !== undefined) return;
		for (const [field, size] of Object.entries(fields))
			if (size < (clean.bytes[at]?.[field] ?? 0))
				rule('incomplete_file', `item ${at} passed ${field} on with ${size} of ${clean.bytes[at]![field]} bytes`);
	});
	const takes = outcome.items.filter((item) => item.json.audio_may_be_incomplete === true && item.json.error === undefined).length;
	if (takes > clean.incompleteTakes) rule('incomplete_file', `${takes} music take(s) with a hole passed on as a success`);
}

/** FAULT_DEBUG: the requests of a run that broke a rule (times from its first request). */
function debugLines(broken: string[], run: Run): string {
	const first = run.log[0]?.arrivedAt ?? 0;
	const requests = run.log.map(
		(e) =>
			`  ${e.index} ${e.arrivedAt - first} ${e.host} ${e.method} ${e.path} ${e.status} ${e.fault ?? ''} silent=${e.silentFrom ? e.silentFrom - first : ''} gaveUp=${e.gaveUpAt ? e.gaveUpAt - first : ''}`,
	);
	const items = JSON.stringify(run.outcome?.items.map((i) => i.json)).slice(0, 600);
	const started = JSON.stringify(run.outcome?.trigger?.startedAt.map((t) => t - first));
	return `DEBUG ${JSON.stringify(broken)}\n${requests.join('\n')}\nitems ${items} started ${started} close ${run.outcome?.trigger?.closeMs} ended ${run.endedAt - first}\n`;
}
