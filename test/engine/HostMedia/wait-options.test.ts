/**
 * How long and how often Host Media waits, in both node versions. Version 2 (the default) reads the
 * "Wait Options" collection; a workflow saved with version 1 keeps its "Polling Options" and its
 * top-level Max Wait for Wait for Notification, read and checked as before. (Version 2's Max Wait
 * ending a poll is in wait.test.ts, its webhook timeout in webhook.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { HostMedia } from '../../../nodes/HostMedia/HostMedia.node';
import { readBinary } from '../../support/engine';
import { FAST, FAST_V1, IMAGE_URL, useMediaEnv } from '../../support/media';
import { waitUntil } from '../../support/wait';

const env = useMediaEnv();
const IMAGING = '/proxy/imaging/v1/ai';
const UPSCALE = { resource: 'image', operation: 'upscale', imageUrl: IMAGE_URL, downloadFiles: false };
const EXTEND = { resource: 'video', operation: 'extend', model: 'videoq2-turbo' };

/** Milliseconds from the submit to the first status check of the (only) upscale task. */
function firstPollDelay(): number {
	const submit = env.sim.requestsTo('POST', `${IMAGING}/image-upscaler`)[0]!;
	const poll = env.sim.requestsTo('GET', `${IMAGING}/image-upscaler/`)[0]!;
	return poll.at - submit.at;
}

/**
 * Runs the node on a task that takes minutes until it has checked the status three times, then
 * cancels it: at a 0.3 s interval that is about a second, at the 5 s default 12 s at the least, past
 * the 10 s this waits (a hang guard, far from either). Counted, not timed: a busy machine stretches a time.
 */
async function pollThrice(parameters: IDataObject, typeVersion?: { typeVersion: number }) {
	return await env.withSlowTasks(async () => {
		const stop = new AbortController();
		const running = env.run(parameters, [{ json: {} }], { ...typeVersion, signal: stop.signal });
		try {
			await waitUntil(() => env.sim.requestsTo('GET', `${IMAGING}/image-upscaler/`).length >= 3, 10_000);
		} finally {
			stop.abort();
		}
		return await running;
	});
}

/** Minutes from now to when a waiting execution resumes on its own. */
const minutesUntil = (date: Date | undefined): number => (date!.getTime() - Date.now()) / 60_000;

describe('version 2: Wait Options', () => {
	it('the node runs at version 2 unless a workflow says otherwise', () => {
		expect(new HostMedia().description).toMatchObject({ version: [1, 2], defaultVersion: 2 });
	});

	it('Poll Interval (Seconds) sets the pause before the first status check', async () => {
		const result = await pollThrice({ ...UPSCALE, waitOptions: { pollIntervalSeconds: 0.3 } });
		expect(result.status).toBe('canceled');
		// 300 ms less 20 % jitter at the least (a lower bound: a busy machine only adds to it).
		expect(firstPollDelay()).toBeGreaterThanOrEqual(240);
	});

	it('Get Task Status with Wait for Completion reads the Wait Options too', async () => {
		const started = await env.run({ ...EXTEND, waitMode: 'none' });
		const taskId = String(started.items[0]!.json.task_id);
		const result = await env.run({
			resource: 'video',
			operation: 'getTaskStatus',
			taskId,
			waitForCompletion: true,
			downloadFiles: false,
			...FAST,
		});
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ task_id: taskId, status: 'succeeded', final: true });
	});

	it('Wait for Notification waits as long as Max Wait (Minutes) says, 120 minutes by default', async () => {
		const custom = await env.withSlowTasks(() => env.run({ ...EXTEND, waitMode: 'webhook', waitOptions: { maxWaitMinutes: 7 } }));
		expect(custom.status).toBe('waiting');
		expect(minutesUntil(custom.waitTill)).toBeCloseTo(7, 1);
		const byDefault = await env.withSlowTasks(() => env.run({ ...EXTEND, waitMode: 'webhook' }));
		expect(minutesUntil(byDefault.waitTill)).toBeCloseTo(120, 1);
	});

	it.each([
		[
			'Poll Until Finished',
			{ ...UPSCALE, waitOptions: { maxWaitMinutes: 0 } },
			'Max Wait (Minutes) must be a number from 0.01 to 43200 (got "0")',
		],
		[
			'Poll Until Finished',
			{ ...UPSCALE, waitOptions: { pollIntervalSeconds: '={{ "soon" }}' } },
			'Poll Interval (Seconds) must be a number from 0.01 to 3600 (got "soon")',
		],
		[
			'Wait for Notification',
			{ ...EXTEND, waitMode: 'webhook', waitOptions: { maxWaitMinutes: -5 } },
			'Max Wait (Minutes) must be a number from 0.01 to 43200 (got "-5")',
		],
		[
			'Wait for Notification',
			{ ...EXTEND, waitMode: 'webhook', waitOptions: { maxWaitMinutes: 1e12 } },
			'Max Wait (Minutes) must be a number from 0.01 to 43200 (got "1000000000000")',
		],
		[
			'Wait for Notification',
			{ ...EXTEND, waitMode: 'webhook', waitOptions: { maxWaitMinutes: 1e300 } },
			'Max Wait (Minutes) must be a number from 0.01 to 43200 (got "1e+300")',
		],
		[
			'Wait for Completion',
			{
				resource: 'video',
				operation: 'getTaskStatus',
				taskId: '1718000000000000001',
				waitForCompletion: true,
				waitOptions: { pollIntervalSeconds: 0 },
			},
			'Poll Interval (Seconds) must be a number from 0.01 to 3600 (got "0")',
		],
	])('%s: a bad wait option is refused, naming the field, before anything is sent', async (_mode, parameters, message) => {
		const result = await env.run(parameters);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(message);
		expect(env.proxyRequests()).toHaveLength(0);
	});
});

describe('version 1: workflows saved before Wait Options', () => {
	const V1 = { typeVersion: 1 };

	it('Polling Options still set the poll interval', async () => {
		const result = await pollThrice({ ...UPSCALE, pollingOptions: { pollIntervalSeconds: 0.3 } }, V1);
		expect(result.status).toBe('canceled');
		expect(firstPollDelay()).toBeGreaterThanOrEqual(240);
	});

	it("Polling Options still set the maximum wait (below version 2's minimum too)", async () => {
		const result = await env.withSlowTasks(() =>
			env.run({ ...UPSCALE, pollingOptions: { pollIntervalSeconds: 0.02, maxWaitMinutes: 0.005 } }, [{ json: {} }], V1),
		);
		expect(result.status).toBe('error');
		const taskId = [...env.sim.proxy.imageTasks.keys()][0]!;
		expect(result.error('Node')?.message).toBe(`The upscale task ${taskId} did not finish within 300 ms (last status: CREATED)`);
	});

	it('Wait for Completion of a status operation still reads Polling Options', async () => {
		const started = await env.run({ ...EXTEND, waitMode: 'none' }, [{ json: {} }], V1);
		const taskId = String(started.items[0]!.json.task_id);
		const result = await env.run(
			{ resource: 'video', operation: 'getTaskStatus', taskId, waitForCompletion: true, downloadFiles: false, ...FAST_V1 },
			[{ json: {} }],
			V1,
		);
		expect(result.items[0]!.json).toMatchObject({ task_id: taskId, status: 'succeeded' });
	});

	it('the top-level Max Wait (Minutes) of Wait for Notification still sets the wait', async () => {
		const result = await env.withSlowTasks(() => env.run({ ...EXTEND, waitMode: 'webhook', webhookMaxWaitMinutes: 5 }, [{ json: {} }], V1));
		expect(result.status).toBe('waiting');
		expect(minutesUntil(result.waitTill)).toBeCloseTo(5, 1);
	});

	it('Wait Options are not part of version 1: n8n drops them, the saved settings apply', async () => {
		const result = await env.run({ ...UPSCALE, ...FAST_V1, waitOptions: { maxWaitMinutes: -1 } }, [{ json: {} }], V1);
		expect(result.status).toBe('success');
	});

	it.each([
		[{ ...UPSCALE, pollingOptions: { pollIntervalSeconds: 0 } }, 'Poll Interval (Seconds) must be a number greater than 0 (got "0")'],
		[{ ...UPSCALE, pollingOptions: { maxWaitMinutes: -1 } }, 'Max Wait (Minutes) must be a number greater than 0 (got "-1")'],
		[{ ...EXTEND, waitMode: 'webhook', webhookMaxWaitMinutes: 0 }, 'Max Wait (Minutes) must be a number greater than 0 (got "0")'],
		[{ ...EXTEND, waitMode: 'webhook', webhookMaxWaitMinutes: 1e12 }, 'Max Wait (Minutes) must be at most 43200 (got "1000000000000")'],
		[{ ...UPSCALE, pollingOptions: { maxWaitMinutes: 1e300 } }, 'Max Wait (Minutes) must be at most 43200 (got "1e+300")'],
	])('bad values are refused with the same words as before, before anything is sent (%#)', async (parameters, message) => {
		const result = await env.run(parameters, [{ json: {} }], V1);
		expect(result.error('Node')?.message).toBe(message);
		expect(env.proxyRequests()).toHaveLength(0);
	});

	it('test/fixtures/saved-v1/upscale-image.json runs as it was saved (5 s polling included)', async () => {
		const workflow = JSON.parse(readFileSync(join(__dirname, '..', '..', 'fixtures', 'saved-v1', 'upscale-image.json'), 'utf8')) as {
			nodes: Array<{ type: string; typeVersion: number; parameters: IDataObject }>;
		};
		const media = workflow.nodes.find((node) => node.type === 'n8n-nodes-host.hostMedia')!;
		expect(media.typeVersion).toBe(1);
		expect(media.parameters.pollingOptions).toEqual({ pollIntervalSeconds: 5, maxWaitMinutes: 30 });
		const result = await env.run(media.parameters, [{ json: {} }], { typeVersion: media.typeVersion });
		expect(result.status).toBe('success');
		const item = result.items[0]!;
		expect(item.json).toMatchObject({ status: 'succeeded', url: expect.any(String) });
		expect(item.binary!.data).toMatchObject({ mimeType: 'image/png', fileExtension: 'png' });
		expect((await readBinary(item.binary!.data!)).length).toBeGreaterThan(0);
		// The saved 5 s interval (± 20 %), not a default of the new layout.
		expect(firstPollDelay()).toBeGreaterThanOrEqual(4000);
	}, 15_000);

	it("version 1's wait parameters are what they were", () => {
		const shownFor = (property: INodeProperties, operation: string) => property.displayOptions?.show?.operation?.includes(operation);
		const properties = new HostMedia().description.properties;
		const v1 = (name: string, operation: string) =>
			properties.filter(
				(property) => property.name === name && shownFor(property, operation) && property.displayOptions?.show?.['@version'],
			);
		const pollingOptions = (pollSeconds: number) => ({
			displayName: 'Polling Options',
			name: 'pollingOptions',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: [
				{
					displayName: 'Max Wait (Minutes)',
					name: 'maxWaitMinutes',
					type: 'number',
					default: 30,
					typeOptions: { minValue: 0.01, maxValue: 43200 },
					description: 'How long to wait for the task before the node fails. The task itself keeps running on the service.',
				},
				{
					displayName: 'Poll Interval (Seconds)',
					name: 'pollIntervalSeconds',
					type: 'number',
					default: pollSeconds,
					typeOptions: { minValue: 0.01, maxValue: 3600 },
					description: 'Pause before the first status check; later pauses grow up to four times as long',
				},
			],
		});
		expect(v1('pollingOptions', 'upscale')).toEqual([
			{
				...pollingOptions(5),
				displayOptions: { show: { waitMode: ['poll'], '@version': [1], resource: ['image'], operation: ['upscale'] } },
			},
		]);
		expect(v1('pollingOptions', 'getTaskStatus')).toEqual([
			{
				...pollingOptions(5),
				displayOptions: { show: { waitForCompletion: [true], '@version': [1], resource: ['image'], operation: ['getTaskStatus'] } },
			},
			{
				...pollingOptions(10),
				displayOptions: { show: { waitForCompletion: [true], '@version': [1], resource: ['video'], operation: ['getTaskStatus'] } },
			},
		]);
		expect(v1('webhookMaxWaitMinutes', 'extend')).toEqual([
			{
				displayName: 'Max Wait (Minutes)',
				name: 'webhookMaxWaitMinutes',
				type: 'number',
				default: 120,
				typeOptions: { minValue: 0.01, maxValue: 43200 },
				description:
					'How long to wait for the notification. If none arrives, the execution resumes with an item whose status is "timeout" (the task may still finish: check it with Get Task Status).',
				displayOptions: { show: { waitMode: ['webhook'], '@version': [1], resource: ['video'], operation: ['extend'] } },
			},
		]);
	});
});
