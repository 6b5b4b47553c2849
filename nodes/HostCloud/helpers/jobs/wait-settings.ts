/**
 * How the node reads the settings of waiting for cloud jobs (Execute and Wait for Completion), once
 * per node run. The parameters are declared in `actions/common.descriptions.ts` with the shared
 * field mechanism; the operation hands their definitions in (`WaitFields`), so checks follow them.
 * Version 2 puts them in "Wait Options" with Max Wait in minutes, as Host Media does; version 1
 * keeps its saved layout: everything under "Additional Fields", Max Wait in seconds.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { checkedOrDefault, type FieldDefinition } from '../../../shared/items/fields';
import { hasWaitOptions, readWaitOptions as readWaitOptionsCollection } from '../../../shared/waits/wait-settings';
import type { WatchSettings } from './tracked-job';

export interface WaitOptions extends WatchSettings {
	maxConcurrentJobs: number;
	includePreview: boolean;
}

/** The wait fields of the operation's form (`actions/common.descriptions.ts`), as the readers check them. */
export interface WaitFields {
	/** Version 2's "Wait Options". */
	waitOptions: FieldDefinition[];
	/** Version 1's wait fields, among "Additional Fields" (Max Wait in seconds). */
	v1WaitFields: FieldDefinition[];
	includePreview: FieldDefinition;
	maxConcurrentJobs: FieldDefinition;
	includeRawOutputs: FieldDefinition;
}

/** Reads the wait settings of the first item: they apply to the whole run. */
export function readWaitOptions(context: IExecuteFunctions, fields: WaitFields): WaitOptions {
	const additional = context.getNodeParameter('additionalFields', 0, {}) as IDataObject;
	const field = (definition: FieldDefinition): unknown => checkedOrDefault(context, 0, definition, additional[definition.name]);
	const v2 = hasWaitOptions(context);
	const wait = v2
		? readWaitOptionsCollection(context, 0, fields.waitOptions)
		: Object.fromEntries(fields.v1WaitFields.map((definition) => [definition.name, field(definition)]));
	const includePreview = field(fields.includePreview) as boolean;
	return {
		maxConcurrentJobs: field(fields.maxConcurrentJobs) as number,
		includePreview,
		keepPreview: includePreview,
		maxWaitMs: Math.round(v2 ? (wait.maxWaitMinutes as number) * 60_000 : (wait.maxWaitSeconds as number) * 1000),
		cancelOnTimeout: wait.onTimeout === 'cancel',
		pollIntervalMs: Math.round((wait.pollIntervalSeconds as number) * 1000),
		silenceMs: Math.round((wait.silenceSeconds as number) * 1000),
		useWebSocket: wait.useWebSocket as boolean,
	};
}

/**
 * The wait of a tool call: bounded by Tool Wait instead of Max Wait, and the job is left running at
 * the bound (an agent collects it with Get Status); no preview, which no model would see.
 */
export function toolWaitOptions(options: WaitOptions, toolWaitMs: number): WaitOptions {
	return { ...options, maxWaitMs: toolWaitMs, cancelOnTimeout: false, includePreview: false, keepPreview: false };
}
