/**
 * The package in n8n 1.x: it loads, Host Cloud waits for a job over the WebSocket and by polling,
 * Host Media polls a task until it is finished and reads a music stream to its end, and a published
 * Host Cloud Trigger starts one execution for a job posted from outside. The examples
 * run as users import them, with the generic and own checks of the 2.x suite
 * (support/example-run.ts).
 */
import { postJobFromOutside, whenCloudTriggerListens } from '../../support/cloud-jobs';
import { e2e } from '../../support/context';
import { V2_CREDENTIAL_TYPE } from '../../support/instance-setup';
import { exampleTestTimeoutMs, runExample } from '../../support/example-run';
import { setParameter } from '../../support/example-checks';
import { outputItems } from '../../support/n8n-client';
import { CREDENTIAL_NAMES } from '../../support/stack';
import { hostNodeType, linearWorkflow, loadExample, TEXT_TO_IMAGE_EXAMPLE } from '../../support/workflows';

const UPSCALE_EXAMPLE = 'upscale-image.json';
const MUSIC_EXAMPLE = 'text-to-music.json';

/**
 * A run of a job of about a second gets the usual minute of a run (client.runWorkflow's), not the
 * example's two: with n8n 1.x's sleep, which ignores its signal, the Cloud watcher slept through
 * the job's end to the end of its nap (a full minute when polling) and such a run took two.
 */
const SHORT_JOB_RUN_MS = 60000;

/** The status reads of one cloud job, as the simulator saw them. */
function statusReadsOf(promptId: string) {
	return e2e().simulator.requestsTo('GET', `/api/job/${promptId}/status`);
}

describe('the package in n8n 1.x', () => {
	it('loads: its five nodes and its three credentials are there', async () => {
		const { client } = e2e();
		const nodes = await client.nodeTypeNames();
		const credentials = await client.credentialTypeNames();
		expect(
			['hostCloud', 'hostCloudTrigger', 'hostMedia', 'hostRegistry', 'hostTaskTrigger']
				.map(hostNodeType)
				.filter((type) => !nodes.has(type)),
		).toEqual([]);
		expect([...Object.keys(CREDENTIAL_NAMES), V2_CREDENTIAL_TYPE].filter((type) => !credentials.has(type))).toEqual([]);
	});

	it(
		'Host Cloud text to image, followed over the WebSocket',
		async () => {
			const stack = e2e();
			const connections = stack.simulator.counters.wsConnections;
			const execution = await runExample(stack, loadExample(TEXT_TO_IMAGE_EXAMPLE), { timeoutMs: SHORT_JOB_RUN_MS });
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
			const execution = await runExample(stack, loadExample(TEXT_TO_IMAGE_EXAMPLE), {
				change: (workflow) => setParameter(workflow, 'Text to Image', 'waitOptions.useWebSocket', false),
				timeoutMs: SHORT_JOB_RUN_MS,
			});
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
			const execution = await runExample(stack, loadExample(UPSCALE_EXAMPLE));
			const [item] = outputItems(execution, 'Upscale 4x');
			expect(item!.json).toMatchObject({ status: 'succeeded', final: true });
		},
		exampleTestTimeoutMs(UPSCALE_EXAMPLE),
	);

	it(
		'Host Media music: a stream that lasts longer than its Idle Timeout, never silent that long, is read to its end',
		async () => {
			const stack = e2e();
			const music = stack.simulator.proxy.music;
			const defaults = { ...music };
			// 2 takes of 24 chunks, 200 ms apart: about 5 s of music, never 2 s of silence.
			Object.assign(music, { audioBytesPerStream: 192 * 1024, chunkBytes: 16 * 1024, chunkDelayMs: 200 });
			try {
				const execution = await runExample(stack, loadExample(MUSIC_EXAMPLE), {
					change: (workflow) => setParameter(workflow, 'Generate music', 'waitOptions.idleTimeoutSeconds', 2),
				});
				expect(outputItems(execution, 'Generate music')).toHaveLength(2);
			} finally {
				Object.assign(music, defaults);
			}
		},
		exampleTestTimeoutMs(MUSIC_EXAMPLE),
	);

	it('Host Cloud Trigger, published: a job posted to the cloud by a script starts one execution with its prompt_id', async () => {
		const { client, importWorkflow, simulator } = e2e();
		const trigger = 'When a job succeeds';
		const workflow = await importWorkflow(
			linearWorkflow('n8n 1.x: cloud trigger', [
				{
					name: trigger,
					type: hostNodeType('hostCloudTrigger'),
					typeVersion: 1,
					parameters: { downloadFiles: false },
					credentials: { hostCloudApi: { name: CREDENTIAL_NAMES.hostCloudApi } },
				},
			]),
		);
		const known = await client.executionIds(workflow.id);
		const listening = whenCloudTriggerListens(simulator);
		await client.activateWorkflow(workflow.id);
		try {
			await listening();
			const promptId = await postJobFromOutside(simulator);
			const execution = await client.waitForNewExecution(workflow.id, known, { timeoutMs: 60000 });
			expect(outputItems(execution, trigger)[0]?.json).toMatchObject({ prompt_id: promptId, status: 'succeeded' });
			await new Promise((resolve) => setTimeout(resolve, 3000));
			expect((await client.executionIds(workflow.id)).size).toBe(known.size + 1);
		} finally {
			await client.deactivateWorkflow(workflow.id);
		}
	});
});
