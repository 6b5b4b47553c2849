/**
 * The Host Cloud Trigger's parameters, and reading them: each is checked when the trigger starts,
 * so a wrong one fails the activation by name rather than every job later.
 */
import type { INodeProperties, ITriggerFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DOWNLOAD_FILES, PUT_FILES_IN_FIELD } from '../../../shared/result-files';
import { binaryFieldName } from '../../../shared/validation';
import { resultFilesProperties } from '../../../shared/descriptions/result-files';

export interface TriggerSettings {
	events: 'succeeded' | 'finished';
	/** Node ids or class types whose outputs are wanted; empty: every node's. */
	outputNodes: string[];
	includeOwnJobs: boolean;
	download: boolean;
	binaryPropertyName: string;
	/** How often a self-hosted server's history is read. */
	pollMs: number;
}

const EVENTS = ['succeeded', 'finished'] as const;
export const POLL_SECONDS = { min: 2, max: 3600, default: 15 };

/** The most output nodes one filter names. */
const MAX_OUTPUT_NODES = 100;

export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			'Starts for every job of the account (Host Cloud) or of the server (self-hosted), whoever started it: the editor, a script or another workflow. On the cloud it listens on the account’s WebSocket; a self-hosted server is asked for its history every few seconds. A job that both starts and ends while n8n is not listening (n8n stopped, or the connection lost) cannot be found afterwards on the cloud.',
		name: 'notice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'options',
		options: [
			{ name: 'Succeeded Jobs Only', value: 'succeeded', action: 'When a job succeeds', description: 'Jobs that produced their outputs' },
			{
				name: 'Every Finished Job',
				value: 'finished',
				action: 'When a job finishes',
				description: 'Succeeded, failed (with the failure in words) or interrupted',
			},
		],
		default: 'succeeded',
		description: 'Which jobs start the workflow',
	},
	{
		displayName: 'Only Outputs of Nodes',
		name: 'outputNodes',
		type: 'string',
		default: '',
		placeholder: '9, SaveImage',
		description:
			'Node IDs or node types of the graph (comma-separated) whose files are wanted, e.g. SaveImage to leave out previews. A succeeded job without files from them does not start the workflow. Leave empty for every node’s files.',
	},
	{
		displayName: 'Include Jobs Started by Host Cloud Nodes',
		name: 'includeOwnJobs',
		type: 'boolean',
		default: false,
		description:
			'Whether jobs that a Host Cloud node of any n8n workflow submitted start this workflow too (they already hand their outputs to the next node). The trigger knows such a job by the tag its queue or history entry carries.',
	},
	...resultFilesProperties({}, 'the files of each job'),
	{
		displayName: 'Poll Every (Seconds)',
		name: 'pollSeconds',
		type: 'number',
		typeOptions: { minValue: POLL_SECONDS.min, maxValue: POLL_SECONDS.max },
		default: 15,
		description:
			'Self-hosted servers only: how often the server’s history is read (its last 100 jobs). On the cloud the trigger listens and does not poll.',
	},
];

function invalid(context: ITriggerFunctions, field: string, problem: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), `The trigger's ${field} ${problem}`, {
		description: 'Open the trigger and correct it.',
	});
}

/** The trigger's parameters, checked: a wrong one throws, naming the field and what is allowed. */
export function readTriggerSettings(context: ITriggerFunctions): TriggerSettings {
	const events = context.getNodeParameter('events', 'succeeded') as unknown;
	if (!EVENTS.includes(events as TriggerSettings['events']))
		throw invalid(context, 'Events', `is "${String(events)}"; use succeeded or finished`);
	const rawNodes = context.getNodeParameter('outputNodes', '') as unknown;
	if (typeof rawNodes !== 'string' && typeof rawNodes !== 'number')
		throw invalid(context, 'Only Outputs of Nodes', 'must be text: node IDs or types, comma-separated');
	const outputNodes = String(rawNodes)
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean);
	if (outputNodes.length > MAX_OUTPUT_NODES)
		throw invalid(context, 'Only Outputs of Nodes', `names ${outputNodes.length} nodes; at most ${MAX_OUTPUT_NODES} are allowed`);
	const includeOwnJobs = context.getNodeParameter('includeOwnJobs', false) as unknown;
	if (typeof includeOwnJobs !== 'boolean') throw invalid(context, 'Include Jobs Started by Host Cloud Nodes', 'must be true or false');
	const download = context.getNodeParameter('downloadFiles', true) as unknown;
	if (typeof download !== 'boolean') throw invalid(context, DOWNLOAD_FILES, 'must be true or false');
	const binaryPropertyName = download
		? binaryFieldName(context, 0, PUT_FILES_IN_FIELD, context.getNodeParameter('binaryPropertyName', 'data'))
		: 'data';
	const given = context.getNodeParameter('pollSeconds', POLL_SECONDS.default) as unknown;
	// An expression may give the number as text ("15").
	const pollSeconds = typeof given === 'string' && given.trim() !== '' ? Number(given) : given;
	if (typeof pollSeconds !== 'number' || !Number.isFinite(pollSeconds) || pollSeconds < POLL_SECONDS.min || pollSeconds > POLL_SECONDS.max)
		throw invalid(
			context,
			'Poll Every (Seconds)',
			`is ${String(pollSeconds)}; use a number from ${POLL_SECONDS.min} to ${POLL_SECONDS.max}`,
		);
	return {
		events: events as TriggerSettings['events'],
		outputNodes,
		includeOwnJobs,
		download,
		binaryPropertyName,
		pollMs: pollSeconds * 1000,
	};
}
