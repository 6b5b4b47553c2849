/**
 * How a node behaves when an AI agent or an MCP client calls it as a tool. n8n (2.41.1) makes a
 * tool type of every `usableAsTool` node (`hostCloud` → `hostCloudTool`) and runs it in one of two
 * ways: the MCP Server Trigger calls it in a supply-data context, where `isToolExecution()` is
 * true; the AI Agent asks the engine to run it as a node of the execution, in an ordinary execute
 * context where `isToolExecution()` is false. The type name ends in "Tool" either way, and n8n's
 * `@tool` display condition reads the same thing, so the editor shows the tool settings below only
 * on the tool type.
 *
 * Such a caller gives up after about a minute (the MCP client SDK's default request timeout) and
 * cannot receive binary data: in tool mode the nodes wait a bounded time, download nothing, and
 * answer compactly (`tool-result.ts`).
 */
import type { IDisplayOptions, IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkedOrDefault, fieldProperty, type FieldDefinition } from '../items/fields';

/** Whether this run answers an AI agent or an MCP client. */
export function runsAsTool(context: IExecuteFunctions): boolean {
	return context.isToolExecution?.() === true || context.getNode().type.endsWith('Tool');
}

/** Shown only on the tool type of the node. */
export const ONLY_AS_TOOL: IDisplayOptions = { show: { '@tool': [true] } };

/** Hidden on the tool type: operations and settings a tool call cannot use. */
export const NOT_AS_TOOL: IDisplayOptions = { hide: { '@tool': [true] } };

/** An operation module that a tool call cannot use says why in `notAsTool`. */
export interface ToolAvailability {
	notAsTool?: string;
}

/** A dropdown's operations, those a tool call cannot use hidden on the tool type (the router refuses them too). */
export function hideOperationsNotForTools(
	options: INodePropertyOptions[],
	operations: Readonly<Record<string, object>>,
): INodePropertyOptions[] {
	const notForTool = (value: unknown): boolean => Boolean((operations[String(value)] as ToolAvailability | undefined)?.notAsTool);
	return options.map((option) => (notForTool(option.value) ? { ...option, displayOptions: NOT_AS_TOOL } : option));
}

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

/** How long one tool call may wait, checked. */
export function readToolWaitMs(context: IExecuteFunctions, itemIndex: number): number {
	const seconds = checkedOrDefault(context, itemIndex, TOOL_WAIT, context.getNodeParameter(TOOL_WAIT.name, itemIndex, undefined));
	return (seconds as number) * 1000;
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

/** The error of an operation or setting that a tool call cannot use, raised before any request. */
export function notForTools(context: IExecuteFunctions, itemIndex: number, reason: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), `Not available to AI agents and MCP clients: ${reason}`, {
		itemIndex,
		description: 'Use this in a regular workflow, or choose another operation or setting for the tool.',
	});
}
