/**
 * Workflow → Wait for Completion at Max Wait, through n8n's engine against both flavours of the
 * simulator (its request log shows every cancel sent): a job given by prompt_id that this execution
 * did not submit is someone else's, so On Timeout "Cancel the Job" leaves it running unless "Cancel
 * Jobs Started Elsewhere at Max Wait" is on; a job this execution submitted (Submit, then Wait for
 * Completion) is cancelled as On Timeout says.
 */
import { ITEMS_NODE_TYPE } from '../../support/items-node';
import { cancelRequestBodies, cloudForSuite, FAST_WAIT, OUTLASTING_NODE_MS, txt2img, waitUntil } from '../../support/cloud';

/** Max Wait of a fifth of a second, On Timeout left at its default (Cancel the Job). */
const SHORT_WAIT = { ...FAST_WAIT, maxWaitMinutes: 0.2 / 60 };

describe.each([
	{ server: 'the cloud', flavour: 'cloud' as const },
	{ server: 'a self-hosted server', flavour: 'self-hosted' as const },
])('on $server', ({ flavour }) => {
	const cloud = cloudForSuite({ flavour });
	const place = flavour === 'cloud' ? 'the cloud' : 'your server';

	const node = (name: string, parameters: Record<string, unknown>) => ({
		name,
		type: 'hostCloud',
		parameters: parameters as never,
		credentials: { hostCloudApi: cloud.credential },
		continueOnFail: true,
	});
	const submit = { resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()) };
	const waitFor = (more: Record<string, unknown> = {}) => ({
		resource: 'workflow',
		operation: 'waitForCompletion',
		promptId: '={{ $json.prompt_id }}',
		waitOptions: SHORT_WAIT,
		...more,
	});

	/** A job submitted by another execution (a Submit node run on its own), still running. */
	async function jobOfAnotherExecution(): Promise<string> {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const submitted = await cloud.harness.runNode(node('Node', submit));
		const promptId = submitted.items[0]!.json.prompt_id as string;
		expect(typeof promptId).toBe('string');
		cloud.sim.requests.length = 0;
		return promptId;
	}

	test('a job another execution submitted is left running at Max Wait, and the item says why', async () => {
		const promptId = await jobOfAnotherExecution();
		const result = await cloud.harness.runNode(node('Node', waitFor()), [{ json: { prompt_id: promptId } }]);

		expect(result.items[0]!.json.error).toBe(
			`Job ${promptId} did not finish within 0.2 seconds (Max Wait); it is still running on ${place}`,
		);
		expect(JSON.stringify(result.items[0]!.json)).toContain('This execution did not submit it, so it was not cancelled');
		expect(cancelRequestBodies(cloud.sim)).toBe('');
		expect(cloud.sim.cloud.jobs.get(promptId)?.status).not.toBe('cancelled');
	});

	test('with "Cancel Jobs Started Elsewhere at Max Wait" on, that job is cancelled', async () => {
		const promptId = await jobOfAnotherExecution();
		const result = await cloud.harness.runNode(node('Node', waitFor({ additionalFields: { cancelStartedElsewhere: true } })), [
			{ json: { prompt_id: promptId } },
		]);

		expect(result.items[0]!.json.error).toBe(
			`Job ${promptId} did not finish within 0.2 seconds (Max Wait), so it was cancelled on ${place}`,
		);
		expect(cancelRequestBodies(cloud.sim)).toContain(promptId);
		await waitUntil(() => cloud.sim.cloud.jobs.get(promptId)?.status === 'cancelled');
	});

	test('a job this execution submitted (Submit, then Wait for Completion) is cancelled at Max Wait, as On Timeout says', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const result = await cloud.harness.run({
			nodes: [
				{ name: 'Input', type: ITEMS_NODE_TYPE, parameters: { items: JSON.stringify([{ json: {} }]) } },
				node('Start', submit),
				node('Wait', waitFor()),
			],
			connect: [
				['Input', 'Start'],
				['Start', 'Wait'],
			],
		});
		const promptId = result.output('Start')[0]!.json.prompt_id as string;

		expect(result.output('Wait')[0]!.json.error).toBe(
			`Job ${promptId} did not finish within 0.2 seconds (Max Wait), so it was cancelled on ${place}`,
		);
		expect(cancelRequestBodies(cloud.sim)).toContain(promptId);
		await waitUntil(() => cloud.sim.cloud.jobs.get(promptId)?.status === 'cancelled');
	});
});
