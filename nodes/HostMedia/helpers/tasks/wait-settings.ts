/**
 * How the node reads what the user set about waiting for a task: the wait mode, the result files,
 * how long and how often to wait. The parameters are declared in `actions/common.descriptions.ts`;
 * an operation hands their field definitions in (`WaitFields`), so checks and messages follow them.
 *
 * Node version 2 puts how long and how often in the "Wait Options" collection that Host Cloud
 * shares. Version 1 keeps the layout its workflows were saved with ("Polling Options", and a
 * top-level "Max Wait (Minutes)" for Wait for Notification), read the way it always was, so those
 * workflows run unchanged.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fieldLabel, type FieldDefinition } from '../../../shared/items/fields';
import { readResultFiles, type ResultFiles } from '../../../shared/binary/result-files';
import { readToolWaitMs, runsAsTool } from '../../../shared/tools/tool-use';
import { invalidField, quoted } from '../../../shared/items/validation';
import { hasWaitOptions, readWaitOptions } from '../../../shared/waits/wait-settings';

export const WAIT_MODES = ['poll', 'webhook', 'none'] as const;
export type WaitMode = (typeof WAIT_MODES)[number];

/** The wait fields of an operation's form (numbers: minutes and seconds), as the readers check them. */
export interface WaitFields {
	pollMaxWait: FieldDefinition;
	pollInterval: FieldDefinition;
	webhookMaxWait: FieldDefinition;
}

/** A number field's default, which version 1 took for a value left out. */
const defaultOf = (field: FieldDefinition): number => (field.kind === 'number' ? (field.default ?? 0) : 0);

/** The wait mode of a submit operation, checked. */
export function waitModeOf(context: IExecuteFunctions, itemIndex: number): WaitMode {
	const mode = context.getNodeParameter('waitMode', itemIndex, 'poll') as string;
	if ((WAIT_MODES as readonly string[]).includes(mode)) return mode as WaitMode;
	throw invalidField(
		context,
		itemIndex,
		'Wait Mode',
		`must be one of Poll Until Finished (poll), Wait for Notification (webhook) or Don't Wait (none) (got ${quoted(mode)})`,
	);
}

export interface PollSettings extends ResultFiles {
	intervalMs: number;
	maxWaitMs: number;
}

/** Version 1's check: any number above 0 (up to the field's bound), a numeric text included; left out, the default. */
function positiveV1(context: IExecuteFunctions, itemIndex: number, field: FieldDefinition, value: unknown): number {
	if (value === undefined || value === null || value === '') return defaultOf(field);
	const number = typeof value === 'string' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0) {
		throw invalidField(context, itemIndex, fieldLabel(field), `must be a number greater than 0 (got ${quoted(value)})`);
	}
	return withinBound(context, itemIndex, field, number);
}

/** A version-1 value above the field's upper bound is refused, naming the bound. */
function withinBound(context: IExecuteFunctions, itemIndex: number, field: FieldDefinition, number: number): number {
	const max = field.kind === 'number' ? field.max : undefined;
	if (max !== undefined && number > max)
		throw invalidField(context, itemIndex, fieldLabel(field), `must be at most ${max} (got ${quoted(number)})`);
	return number;
}

/** Reads and checks how to poll, before anything is sent. */
export function readPollSettings(context: IExecuteFunctions, itemIndex: number, fields: WaitFields): PollSettings {
	let intervalSeconds: number;
	let maxWaitMinutes: number;
	if (hasWaitOptions(context)) {
		const options = readWaitOptions(context, itemIndex, [fields.pollMaxWait, fields.pollInterval]);
		intervalSeconds = options.pollIntervalSeconds as number;
		maxWaitMinutes = options.maxWaitMinutes as number;
	} else {
		const options = context.getNodeParameter('pollingOptions', itemIndex, {}) as IDataObject;
		intervalSeconds = positiveV1(context, itemIndex, fields.pollInterval, options.pollIntervalSeconds);
		maxWaitMinutes = positiveV1(context, itemIndex, fields.pollMaxWait, options.maxWaitMinutes);
	}
	// A tool call waits at most Tool Wait and never downloads (read here, before anything is sent).
	if (runsAsTool(context)) {
		return {
			intervalMs: intervalSeconds * 1000,
			maxWaitMs: readToolWaitMs(context, itemIndex),
			download: false,
			binaryPropertyName: 'data',
		};
	}
	return { intervalMs: intervalSeconds * 1000, maxWaitMs: maxWaitMinutes * 60_000, ...readResultFiles(context, itemIndex) };
}

/** Reads and checks how long Wait for Notification waits, before anything is sent. */
export function readWebhookMaxWaitMinutes(context: IExecuteFunctions, itemIndex: number, fields: WaitFields): number {
	const field = fields.webhookMaxWait;
	if (hasWaitOptions(context)) return readWaitOptions(context, itemIndex, [field]).maxWaitMinutes as number;
	const minutes = context.getNodeParameter('webhookMaxWaitMinutes', itemIndex, defaultOf(field)) as unknown;
	// Version 1 took a number only (no numeric text), and refused an empty field.
	if (typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes <= 0) {
		throw invalidField(context, itemIndex, fieldLabel(field), `must be a number greater than 0 (got ${quoted(minutes)})`);
	}
	return withinBound(context, itemIndex, field, minutes);
}
