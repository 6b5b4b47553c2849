/**
 * The parameters a node shows on its tool type (`@tool`, see `../tool-use.ts`): what the agent
 * reads about the tool, how long one call waits, and the conditions that show or hide a parameter there.
 */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { fieldProperty, type FieldDefinition } from '../items/fields';

/** Shown only on the tool type of the node. */
export const ONLY_AS_TOOL: IDisplayOptions = { show: { '@tool': [true] } };

/** Hidden on the tool type: operations and settings a tool call cannot use. */
export const NOT_AS_TOOL: IDisplayOptions = { hide: { '@tool': [true] } };

/** Under the MCP clients' 60 s, with room for the submit and the links of the outputs. */
export const DEFAULT_TOOL_WAIT_SECONDS = 40;

export const TOOL_WAIT: FieldDefinition = {
	name: 'toolWaitSeconds',
	displayName: 'Tool Wait (Seconds)',
	kind: 'integer',
	min: 1,
	max: 3600,
	default: DEFAULT_TOOL_WAIT_SECONDS,
	description:
		'Longest time one call of the tool waits for the job. After it the tool answers "running" with the ID to check later, and the job goes on (it is not cancelled). MCP clients give up after 60 seconds unless told otherwise.',
};

/** "Tool Wait (Seconds)", on the tool type of operations that wait. */
export function toolWaitProperty(): INodeProperties {
	return { ...fieldProperty(TOOL_WAIT), displayOptions: ONLY_AS_TOOL };
}

/**
 * What the agent or MCP client reads about the tool, prefilled for the operation. n8n takes a
 * node's own "toolDescription" instead of adding its "Set Automatically" choice, which would only
 * say "Execute a workflow in Host Cloud".
 */
export function toolDescriptionProperty(text: string): INodeProperties {
	return {
		displayName: 'Tool Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 6 },
		default: text,
		description:
			'What the AI agent or MCP client reads about this tool: what it makes, what it needs and what it answers. Say what your workflow makes and what its inputs mean.',
		displayOptions: ONLY_AS_TOOL,
	};
}

/**
 * A tool's prefilled description for each value of a root parameter (n8n shows the one whose value
 * is set): where what a tool can do differs by that setting (Host Cloud's API Generation), its
 * description must not promise what the setting takes away.
 */
export function toolDescriptionsBy(parameter: string, texts: Record<string, string>): INodeProperties[] {
	return Object.entries(texts).map(([value, text]) => ({
		...toolDescriptionProperty(text),
		displayOptions: { show: { ...ONLY_AS_TOOL.show, [`/${parameter}`]: [value] } },
	}));
}
