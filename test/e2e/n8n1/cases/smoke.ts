/**
 * The package in n8n 1.x: it loads, Host Cloud waits for a job over the WebSocket and by polling,
 * and Host Media polls a task until it is finished. The examples run as users import them, with
 * the generic and own checks of the 2.x suite (support/example-run.ts).
 */
import { e2e } from '../../support/context';
import { exampleTestTimeoutMs, runExample } from '../../support/example-run';
import { setParameter } from '../../support/example-checks';
import { outputItems } from '../../support/n8n-client';
import { CREDENTIAL_NAMES } from '../../support/stack';
import { hostNodeType, loadExamples, TEXT_TO_IMAGE_EXAMPLE } from '../../support/workflows';

const UPSCALE_EXAMPLE = 'upscale-image.json';

function example(file: string) {
	const found = loadExamples().find((candidate) => candidate.file === file);
	if (!found) throw new Error(`examples/${file} is missing`);
	return found;
}

/** The status reads and the job record reads of one cloud job, as the simulator saw them. */
function statusReadsOf(promptId: string) {
	return e2e().simulator.requestsTo('GET', `/api/job/${promptId}/status`);
}

describe('the package in n8n 1.x', () => {
	it('loads: its four nodes and both credentials are there', async () => {
		const { client } = e2e();
		const nodes = await client.nodeTypeNames();
		const credentials = await client.credentialTypeNames();
		expect(['hostCloud', 'hostMedia', 'hostRegistry', 'hostTaskTrigger'].map(hostNodeType).filter((type) => !nodes.has(type))).toEqual([]);
		expect(Object.keys(CREDENTIAL_NAMES).filter((type) => !credentials.has(type))).toEqual([]);
	});

	it(
		'Host Cloud text to image, followed over the WebSocket',
		async () => {
			const stack = e2e();
			const connections = stack.simulator.counters.wsConnections;
			const execution = await runExample(stack, example(TEXT_TO_IMAGE_EXAMPLE));
			const [item] = outputItems(execution, 'Text to Image');
			expect(item!.json.status).toBe('completed');
			expect(stack.simulator.counters.wsConnections).toBeGreaterThan(connections);
		},
		exampleTestTimeoutMs(TEXT_TO_IMAGE_EXAMPLE),
	);

	it(
		'Host Cloud text to image with Use Live Progress off: the job status is polled',
		async () => {
			const stack = e2e();
			const connections = stack.simulator.counters.wsConnections;
			const execution = await runExample(stack, example(TEXT_TO_IMAGE_EXAMPLE), (workflow) =>
				setParameter(workflow, 'Text to Image', 'waitOptions.useWebSocket', false),
			);
			const [item] = outputItems(execution, 'Text to Image');
			expect(item!.json.status).toBe('completed');
			expect(statusReadsOf(String(item!.json.prompt_id)).length).toBeGreaterThan(0);
			expect(stack.simulator.counters.wsConnections).toBe(connections);
		},
		exampleTestTimeoutMs(TEXT_TO_IMAGE_EXAMPLE),
	);

	it(
		'Host Media upscale, Poll Until Finished',
		async () => {
			const stack = e2e();
			const execution = await runExample(stack, example(UPSCALE_EXAMPLE));
			const [item] = outputItems(execution, 'Upscale 4x');
			expect(item!.json).toMatchObject({ status: 'succeeded', final: true });
		},
		exampleTestTimeoutMs(UPSCALE_EXAMPLE),
	);
});
