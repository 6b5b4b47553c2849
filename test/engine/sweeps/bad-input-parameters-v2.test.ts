/**
 * Bad-input sweep over parameters on v2 (issue 45): the Host Cloud operations both API generations
 * have, swept again with API Generation v2 on a Host Cloud V2 API credential against the v2
 * simulator (cloud surface), with the fields v2 shows, held to the promises of the v1 sweep
 * (`bad-input-parameters.test.ts`, `bad-input/sweep-fields.ts`), and every v2 request it sends one
 * the contract allows. API Generation itself is swept on v1. Half the runs of v1 per operation: a
 * value that passes runs a real (short) job.
 */
import { RUNS, SEED, SWEEP_TIMEOUT_MS, recordFigures, tally } from '../../support/bad-input';
import { V2_SERVED } from '../../support/fault-paths';
import { ITEM, itemFor, onBothGenerations, runSweptOnV2, sweepBase } from '../../support/sweep-operations';
import type { HarnessItem } from '../../support/items-node';
import type { Parameters } from '../../support/node-parameters';
import { startSimulator, type V2Simulator } from '../../../simulator/server';
import { sweepFields } from './bad-input/sweep-fields';
import { harness, node, OPERATIONS } from './bad-input/sweep-target';

const V2_RUNS = Math.ceil(RUNS / 2);
const BOTH_GENERATIONS = OPERATIONS.filter(([type, resource, operation]) => type === 'hostCloud' && onBothGenerations(resource, operation));

let sim: V2Simulator;
let simCredential = '';
beforeAll(async () => {
	sim = await startSimulator({ flavour: 'v2', nodeMs: 5, v2: { surface: 'cloud' } });
	simCredential = harness.addCredential('hostCloudV2Api', { baseUrl: sim.baseUrl, apiKey: sim.apiKey }, 'Host Cloud V2 API');
});
afterAll(async () => {
	await sim.close();
	const { inputs_tried, uncaught_errors, refused_before_sending } = tally;
	recordFigures('parameters_v2', { inputs_tried, uncaught_errors, refused_before_sending });
});

const runV2 = (parameters: Parameters, item: HarnessItem = ITEM) => runSweptOnV2(harness, sim, simCredential, parameters, item);
const v2Base = (resource: string, operation: string) => sweepBase(harness, 'hostCloud', resource, operation, 'v2');

describe(`bad-input sweep over parameters on v2 (seed ${SEED}; replay with BAD_INPUT_SEED=${SEED})`, () => {
	test('the operations both generations have are swept on v2', () => {
		expect(BOTH_GENERATIONS.map(([, resource, operation]) => `${resource} ${operation}`).sort()).toEqual(
			V2_SERVED.filter(([resource, operation]) => onBothGenerations(resource, operation))
				.map(([resource, operation]) => `${resource} ${operation}`)
				.sort(),
		);
		expect(BOTH_GENERATIONS.length).toBeGreaterThanOrEqual(9);
	});

	test.each(BOTH_GENERATIONS)('%s %s: %s [v2] — the base parameters are accepted and sent', async (_type, resource, operation) => {
		const run = await runV2(v2Base(resource, operation));
		expect({ refused: run.sent.length === 0 ? run.error?.message : undefined, offContract: run.offContract }).toEqual({
			refused: undefined,
			offContract: [],
		});
	});

	test.each(BOTH_GENERATIONS)(
		'%s %s: %s [v2]',
		async (_type, resource, operation) => {
			await sweepFields(node('hostCloud'), v2Base(resource, operation), {
				run: runV2,
				item: itemFor('hostCloud'),
				numRuns: V2_RUNS,
				skip: (field) => field.property.name === 'apiGeneration',
			});
		},
		SWEEP_TIMEOUT_MS,
	);
});
