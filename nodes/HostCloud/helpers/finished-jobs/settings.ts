/**
 * Reading the Host Cloud Trigger's parameters (declared in HostCloudTrigger.node.ts): each is checked when the trigger starts,
 * so a wrong one fails the activation by name rather than every job later.
 */
import type { ITriggerFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DOWNLOAD_FILES, PUT_FILES_IN_FIELD } from '../../../shared/binary/result-files';
import { binaryFieldName } from '../../../shared/items/validation';
import { thisInstanceId } from '../ownership/job-tag';

export interface TriggerSettings {
	events: 'succeeded' | 'finished';
	/** Node ids or class types whose outputs are wanted; empty: every node's. */
	outputNodes: string[];
	includeOwnJobs: boolean;
	download: boolean;
	binaryPropertyName: string;
	/** How often a self-hosted server's history is read. */
	pollMs: number;
	/** This n8n's id (not a parameter): a job whose tag names it was started by a Host Cloud node of this n8n. */
	instanceId?: string;
}

const EVENTS = ['succeeded', 'finished'] as const;
export const POLL_SECONDS = { min: 2, max: 3600, default: 15 };

/** The most output nodes one filter names. */
const MAX_OUTPUT_NODES = 100;

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
		instanceId: thisInstanceId(context),
	};
}
