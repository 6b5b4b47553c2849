/**
 * Bad-input sweep over malformed service answers (issue 13 item 4), through n8n's engine: every
 * operation the node descriptions list, with its base parameters, against a loopback service that
 * gives every request of the run the same bad answer, one a proxy or a broken service really gives
 * (HTML pages, empty bodies, cut JSON, wrong field types, a 200 with an error body, huge bodies).
 * Each answer carries the credentials' secrets, so an answer echoed into a message or an output
 * shows. What a user must see: never a JavaScript error; the item fails saying what came back; no
 * secret of the credential shows; every wait is bounded (a run ends within 10 s). 5xx pages are
 * left out: they are retried with back-off (seconds each), which the chaos suite covers.
 */
import fc from 'fast-check';

import { RUNS, SEED, SWEEP_TIMEOUT_MS, recordFigures, tally, uncaughtError } from '../../support/bad-input';
import type { Parameters } from '../../support/node-parameters';
import { itemFor, type SweepRun } from '../../support/sweep-operations';
import { readsFiles } from './bad-input/sweep-fields';
import { baseParameters, EXECUTABLE, node, runOnce, SECRETS, useSweepService } from './bad-input/sweep-target';

useSweepService();

afterAll(() => {
	const { malformed_answers_tried, uncaught_errors, secrets_found } = tally;
	recordFigures('answers', { malformed_answers_tried, uncaught_errors, secrets_found });
});

const { cloudKey, accessToken, publishingToken, repohostToken } = SECRETS;
const withSecrets = `key=${cloudKey} token=${accessToken} ${publishingToken} ${repohostToken}`;

type BadAnswer = { status: number; type: string; body: string; what: string };
const answers: fc.Arbitrary<BadAnswer> = fc.oneof(
	fc.constantFrom(200, 400, 404, 413).map((status) => ({
		status,
		type: 'text/html',
		body: `<html><head><title>${status}</title></head><body><h1>Gateway error</h1><!-- ${withSecrets} --></body></html>`,
		what: 'an HTML page',
	})),
	fc.constantFrom(200, 204, 400).map((status) => ({ status, type: 'application/json', body: '', what: 'an empty body' })),
	fc.integer({ min: 1, max: 60 }).map((cut) => {
		const whole = JSON.stringify({ prompt_id: 'p-1', data: { task_id: 't-1', status: 'CREATED', generated: [] }, note: withSecrets });
		return { status: 200, type: 'application/json', body: whole.slice(0, cut), what: 'truncated JSON' };
	}),
	fc.constantFrom<unknown>(123, [], {}, null, 'text', true, { nested: [1] }).map((wrong) => ({
		status: 200,
		type: 'application/json',
		body: JSON.stringify({
			prompt_id: wrong,
			status: wrong,
			data: wrong,
			task_id: wrong,
			state: wrong,
			generated: wrong,
			creations: wrong,
			nodes: wrong,
			node_version: wrong,
			signedUrl: wrong,
			queue_running: wrong,
			queue_pending: wrong,
			id: wrong,
			note: withSecrets,
		}),
		what: 'wrong field types',
	})),
	fc.constantFrom('error', 'message').map((key) => ({
		status: 200,
		type: 'application/json',
		body: JSON.stringify({ [key]: { type: 'internal', message: `failed for ${withSecrets}` } }),
		what: 'a 200 with an error body',
	})),
	// Past every bound the node reads a service's words within (1000 characters of a text, 64 KiB of an
	// error body); the reader's own limit (64 MiB) is the bounded-JSON tests'.
	fc.integer({ min: 65, max: 256 }).map((kib) => ({
		status: 200,
		type: 'application/json',
		body: JSON.stringify({ filler: 'x'.repeat(kib * 1024), note: withSecrets }),
		what: 'a huge body',
	})),
);

/**
 * Short waits: an operation that waits for a job gives up at Max Wait (1.2 s), never hangs. A status
 * it cannot read is polled again until then: every 0.2 s is six reads a run, enough to see it go on
 * and stop (every 0.05 s made Wait for Completion read 25 answers a run, up to 256 KiB each).
 */
const QUICK_WAIT = { maxWaitMinutes: 0.02, pollIntervalSeconds: 0.2, silenceSeconds: 0.05 };
const SAYS_WHAT_CAME_BACK =
	/HTTP \d{3}|answer|respon|unexpected|JSON|empty|not (a|an) |no [a-z_]+|missing|shape|invalid|timed out|did not|reports|ended/i;

/**
 * One operation's answers are drawn by fast-check (the same for every operation, from the seed)
 * and run side by side, each run on its own address of the service: a run that meets a lost
 * submit waits the node's own pauses (Execute about 4 s), which one after another made this part
 * the longest of the sweep.
 */
const ANSWERS_PER_OPERATION = Math.ceil(RUNS / 4);

const named = (answer: BadAnswer) => `${answer.what} (HTTP ${answer.status}): ${answer.body.slice(0, 80)}`;

/** One run of `type` with `parameters` (its input item with files only if it reads them), every request of it answered with `answer`. */
const runAnswered = (type: string, parameters: Parameters, answer: BadAnswer): Promise<SweepRun> =>
	runOnce(type, parameters, readsFiles(node(type), parameters) ? itemFor(type) : { json: {} }, (_req, res) => {
		res.writeHead(answer.status, { 'Content-Type': answer.type });
		res.end(answer.body);
	}).catch((error: unknown) => Promise.reject(new Error(`${named(answer)}: ${(error as Error).message}`)));

/** What a user must see of one run given `answer`, with the answer named should it fail. */
function judge(answer: BadAnswer, run: SweepRun, own: string[]): void {
	const what = named(answer);
	tally.malformed_answers_tried++;
	const uncaught = uncaughtError(run.error);
	if (uncaught) tally.uncaught_errors++;
	expect({ answer: what, uncaught: uncaught ?? 'none' }).toEqual({ answer: what, uncaught: 'none' });
	const shown = JSON.stringify([run.error?.message, run.error?.description, run.output]);
	const leaked = own.filter((secret) => shown.includes(secret));
	tally.secrets_found += leaked.length;
	expect({ answer: what, leaked }).toEqual({ answer: what, leaked: [] });
	// A failure says what came back: the status, or what was wrong with the answer.
	if (run.error)
		expect({ answer: what, said: run.error.message }).toEqual({ answer: what, said: expect.stringMatching(SAYS_WHAT_CAME_BACK) });
}

describe(`bad-input sweep over malformed service answers (seed ${SEED}; replay with BAD_INPUT_SEED=${SEED})`, () => {
	test.each(EXECUTABLE)(
		'%s %s: %s',
		async (type, resource, operation) => {
			const base = { ...baseParameters(type, resource, operation), ...(type === 'hostCloud' ? { waitOptions: QUICK_WAIT } : {}) };
			// A node can only blank out its own credential's secrets (the answer carries both credentials').
			const own = type === 'hostCloud' ? [cloudKey] : [accessToken, publishingToken, repohostToken];
			const drawn = fc.sample(answers, { seed: SEED, numRuns: ANSWERS_PER_OPERATION });
			// Eight at a time, the default count: a deeper sweep (BAD_INPUT_RUNS) runs more batches, not more at once.
			for (let at = 0; at < drawn.length; at += 8) {
				const batch = drawn.slice(at, at + 8);
				const runs = await Promise.all(batch.map((answer) => runAnswered(type, base, answer)));
				runs.forEach((run, index) => judge(batch[index]!, run, own));
			}
		},
		SWEEP_TIMEOUT_MS,
	);
});
