/**
 * How the node waits for cloud jobs: the settings shared by Execute and Wait for Completion, as
 * fields of their "Additional Fields" collection, and reading them (once per node run).
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { WatchSettings } from './job-watcher';
import { booleanValue, integerInRange, numberInRange, oneOf } from '../../shared/validation';

/** Waiting fields, sorted by display name as n8n lists collection fields. */
export const waitFields: INodeProperties[] = [
	{
		displayName: 'Include Preview Image',
		name: 'includePreview',
		type: 'boolean',
		default: false,
		description: 'Whether to add the last in-progress preview the cloud sent for the job as binary data named "preview"',
	},
	{
		displayName: 'Max Concurrent Jobs',
		name: 'maxConcurrentJobs',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 50 },
		default: 3,
		description:
			'How many items run on the cloud at the same time. Match your plan’s parallel limit (1, 3 or 5); extra jobs wait in the cloud queue.',
	},
	{
		displayName: 'Max Wait (Seconds)',
		name: 'maxWaitSeconds',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 3 },
		default: 1800,
		description: 'Longest time to wait for one job. 0 waits without limit.',
	},
	{
		displayName: 'On Timeout',
		name: 'onTimeout',
		type: 'options',
		options: [
			{ name: 'Cancel the Job', value: 'cancel', description: 'Stop the job on the cloud so it uses no more credits' },
			{ name: 'Leave It Running', value: 'keep', description: 'Collect it later with Wait for Completion and its prompt_id' },
		],
		default: 'cancel',
		description: 'What happens to a job that is still running when Max Wait is reached',
	},
	{
		displayName: 'Poll Interval (Seconds)',
		name: 'pollIntervalSeconds',
		type: 'number',
		typeOptions: { minValue: 0.01, numberPrecision: 3 },
		default: 2,
		description: 'How often to ask for a job’s status when live progress is not available (no WebSocket, or it went quiet or closed)',
	},
	{
		displayName: 'Silence Timeout (Seconds)',
		name: 'silenceSeconds',
		type: 'number',
		typeOptions: { minValue: 0.01, numberPrecision: 3 },
		default: 15,
		description: 'When the live progress connection sends nothing for this long, the node checks on its jobs by asking for their status',
	},
	{
		displayName: 'Use Live Progress (WebSocket)',
		name: 'useWebSocket',
		type: 'boolean',
		default: true,
		description:
			'Whether to follow jobs over a WebSocket, which reports the end of a job at once. When off, or where n8n has no WebSocket client, the node polls the job status instead.',
	},
];

export interface WaitOptions extends WatchSettings {
	maxConcurrentJobs: number;
	includePreview: boolean;
}

/** Reads the waiting fields of the first item's Additional Fields: they apply to the whole run. */
export function readWaitOptions(context: IExecuteFunctions, collection = 'additionalFields'): WaitOptions {
	const fields = context.getNodeParameter(collection, 0, {}) as Record<string, unknown>;
	const seconds = (name: string, field: string, fallback: number, min: number): number =>
		numberInRange(context, 0, field, fields[name] ?? fallback, min);
	const includePreview = booleanValue(context, 0, 'Include Preview Image', fields.includePreview ?? false);
	return {
		maxConcurrentJobs: integerInRange(context, 0, 'Max Concurrent Jobs', fields.maxConcurrentJobs ?? 3, 1, 50),
		includePreview,
		keepPreview: includePreview,
		maxWaitMs: Math.round(seconds('maxWaitSeconds', 'Max Wait (Seconds)', 1800, 0) * 1000),
		cancelOnTimeout: oneOf(context, 0, 'On Timeout', fields.onTimeout ?? 'cancel', ['cancel', 'keep']) === 'cancel',
		pollIntervalMs: Math.round(seconds('pollIntervalSeconds', 'Poll Interval (Seconds)', 2, 0.01) * 1000),
		silenceMs: Math.round(seconds('silenceSeconds', 'Silence Timeout (Seconds)', 15, 0.01) * 1000),
		useWebSocket: booleanValue(context, 0, 'Use Live Progress (WebSocket)', fields.useWebSocket ?? true),
	};
}
