/**
 * Bad-input sweep over Host Task Trigger's parameters (issue 13 item 4): the trigger has no
 * operations, its parameters are read when a notification arrives. For a visible field and a
 * hostile value of it (`bad-input/cases.ts`), a notification delivered through n8n's webhook
 * context must never turn into a JavaScript error (n8n would answer the service 500).
 */
import fc from 'fast-check';

import { RUNS, SEED, SWEEP_TIMEOUT_MS, recordFigures, tally, uncaughtError } from '../../support/bad-input';
import { visibleFields, withField } from '../../support/node-parameters';
import { casesFor, fieldAndCase } from './bad-input/cases';
import { harness, node } from './bad-input/sweep-target';

afterAll(() => {
	const { inputs_tried, uncaught_errors } = tally;
	recordFigures('trigger', { inputs_tried, uncaught_errors });
});

test(
	`Host Task Trigger: bad parameter values never break a notification (seed ${SEED}; replay with BAD_INPUT_SEED=${SEED})`,
	async () => {
		const fields = visibleFields(node('hostTaskTrigger'), {}).filter((field) => casesFor(field) !== undefined);
		const notification = { data: { task_id: 'task-1', status: 'COMPLETED', generated: ['https://storage.example/a.png'] } };
		await fc.assert(
			fc.asyncProperty(fieldAndCase(fields), async ({ field, value }) => {
				tally.inputs_tried++;
				const workflow = harness.buildWorkflow({
					nodes: [{ name: 'Trigger', type: 'hostTaskTrigger', parameters: withField({}, field, value) as never }],
				});
				const error = await harness.callWebhook(workflow, 'Trigger', { body: notification }).then(
					() => undefined,
					(thrown: unknown) => thrown,
				);
				const uncaught = uncaughtError(error);
				if (uncaught) tally.uncaught_errors++;
				expect(uncaught ?? 'none').toBe('none');
			}),
			{ seed: SEED, numRuns: RUNS, endOnFailure: true },
		);
	},
	SWEEP_TIMEOUT_MS,
);
