/**
 * Bad-input sweep over parameters (issue 13 item 4), through n8n's engine: for every operation the
 * node descriptions list, fast-check picks a visible field and a hostile value for it (NaN, out of
 * range, huge, text where a number goes, lists and objects from expressions, empty and odd Unicode
 * text, a missing binary field; `bad-input/cases.ts`) and runs the node against a loopback service
 * that records every request and refuses each one (so a run ends at its first request).
 *
 * What a user must see: never a JavaScript error (TypeError, RangeError...); a value that cannot be
 * right fails the item, names the field and sends nothing (no request, no WebSocket, not even after
 * the run ended); a value the field allows is not refused; nothing sent carries "[object Object]",
 * "NaN" or "undefined". The other parts of the sweep: `bad-input-parameters-v2` (the same on v2),
 * `bad-input-defects` (what it found), `bad-input-answers` (malformed answers), `bad-input-trigger`.
 */
import { RUNS, SEED, SWEEP_TIMEOUT_MS, recordFigures, tally } from '../../support/bad-input';
import { itemFor } from '../../support/sweep-operations';
import { sweepFields } from './bad-input/sweep-fields';
import { baseParameters, EXECUTABLE, node, OPERATIONS, runOnce, sweepService, useSweepService } from './bad-input/sweep-target';

useSweepService();

afterAll(() => {
	const { inputs_tried, uncaught_errors, refused_before_sending } = tally;
	recordFigures('parameters', { inputs_tried, uncaught_errors, refused_before_sending });
});

describe(`bad-input sweep over parameters (seed ${SEED}; replay with BAD_INPUT_SEED=${SEED})`, () => {
	test('every node and operation is swept', () => {
		expect(new Set(OPERATIONS.map(([type]) => type))).toEqual(new Set(['hostCloud', 'hostMedia', 'hostRegistry', 'hostTaskTrigger']));
		expect(OPERATIONS.length).toBeGreaterThan(20);
	});

	test.each(EXECUTABLE)(
		'%s %s: %s — the base parameters are accepted (so the sweep tests each field alone)',
		async (type, resource, operation) => {
			const run = await runOnce(type, baseParameters(type, resource, operation));
			expect({ refused: run.sent.length === 0 ? run.error?.message : undefined }).toEqual({ refused: undefined });
		},
	);

	test.each(EXECUTABLE)(
		'%s %s: %s',
		async (type, resource, operation) => {
			await sweepFields(node(type), baseParameters(type, resource, operation), {
				run: (parameters, item) => runOnce(type, parameters, item),
				item: itemFor(type),
				numRuns: RUNS,
				mustStaySilent: (run, what) => sweepService().expectSilent(run, `${type} ${resource}: ${operation}, ${what}`),
			});
		},
		SWEEP_TIMEOUT_MS,
	);

	test("a refused value sent nothing after its run either, and every request carried its run's address", async () => {
		expect(await sweepService().spokeLate()).toEqual([]);
	});
});
