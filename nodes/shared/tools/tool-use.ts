/**
 * How a node behaves when an AI agent or an MCP client calls it as a tool. n8n (2.41.1) makes a
 * tool type of every `usableAsTool` node (`hostCloud` → `hostCloudTool`) and runs it in one of two
 * ways: the MCP Server Trigger calls it in a supply-data context, where `isToolExecution()` is
 * true; the AI Agent asks the engine to run it as a node of the execution, in an ordinary execute
 * context where `isToolExecution()` is false. The type name ends in "Tool" either way, and n8n's
 * `@tool` display condition reads the same thing, so the editor shows the tool settings (`descriptions/tool-options.ts`) only
 * on the tool type.
 *
 * Such a caller gives up after about a minute (the MCP client SDK's default request timeout) and
 * cannot receive binary data: in tool mode the nodes wait a bounded time, download nothing, and
 * answer compactly (`tool-result.ts`).
 */
import type { IExecuteFunctions, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { NOT_AS_TOOL, TOOL_WAIT } from '../descriptions/tool-options';
import { checkedOrDefault } from '../items/fields';

/** Whether this run answers an AI agent or an MCP client. */
export function runsAsTool(context: IExecuteFunctions): boolean {
	return context.isToolExecution?.() === true || context.getNode().type.endsWith('Tool');
}

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

/** How long one tool call may wait, checked. */
export function readToolWaitMs(context: IExecuteFunctions, itemIndex: number): number {
	const seconds = checkedOrDefault(context, itemIndex, TOOL_WAIT, context.getNodeParameter(TOOL_WAIT.name, itemIndex, undefined));
	return (seconds as number) * 1000;
}

/** The error of an operation or setting that a tool call cannot use, raised before any request. */
export function notForTools(context: IExecuteFunctions, itemIndex: number, reason: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), `Not available to AI agents and MCP clients: ${reason}`, {
		itemIndex,
		description: 'Use this in a regular workflow, or choose another operation or setting for the tool.',
	});
}
