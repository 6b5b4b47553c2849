/**
 * The package's nodes as n8n (2.41.1) runs them for AI agents and MCP clients, in n8n-core's engine.
 *
 * n8n makes a tool type of every `usableAsTool` node (`hostCloud` → `hostCloudTool`): the same node
 * under a name ending in "Tool", with no main input, an `ai_tool` output, and n8n's own tool
 * description settings when the node brings none. It then runs it in one of two ways:
 * - the MCP Server Trigger asks n8n-core for its connected tools (`getInputConnectionData`), which
 *   builds each tool (name from the node name, description, argument schema from `$fromAI`) and
 *   runs the node in a supply-data context, where `isToolExecution()` is true: `connectedTools`
 *   does exactly that, with n8n-core's own code;
 * - the AI Agent asks the engine to run the tool node as a node of the execution, with the agent's
 *   input item plus the tool's arguments and a `toolCallId`, in an ordinary execute context
 *   (`isToolExecution()` is false): a plain `harness.run` of the tool type, as `runAsAgentTool` does.
 */
import { ExecuteContext } from 'n8n-core';
import {
	createEmptyRunExecutionData,
	NodeConnectionTypes,
	nodeNameToToolName,
	type IDataObject,
	type INode,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
	Workflow,
} from 'n8n-workflow';

import { type EngineHarness, PACKAGE_NAME } from './engine';

/** The tool type n8n makes of a node type (it wraps the node; the node itself is unchanged). */
export function toolTypeOf(nodeType: INodeType): INodeType {
	const base = nodeType.description;
	const properties: INodeProperties[] = [...base.properties];
	if (!properties.some((property) => property.name === 'toolDescription')) {
		// n8n's own settings for nodes that bring no tool description.
		properties.unshift(
			{
				displayName: 'Tool Description',
				name: 'descriptionType',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Set Automatically', value: 'auto' },
					{ name: 'Set Manually', value: 'manual' },
				],
				default: 'auto',
			},
			{
				displayName: 'Description',
				name: 'toolDescription',
				type: 'string',
				default: base.description,
				displayOptions: { show: { descriptionType: ['manual'] } },
			},
		);
	}
	const description: INodeTypeDescription = Object.create(base, {
		name: { value: `${base.name}Tool`, enumerable: true },
		displayName: { value: `${base.displayName} Tool`, enumerable: true },
		inputs: { value: [], enumerable: true },
		outputs: { value: [NodeConnectionTypes.AiTool], enumerable: true },
		usableAsTool: { value: undefined, enumerable: true },
		properties: { value: properties, enumerable: true },
	});
	return Object.create(nodeType, { description: { value: description } }) as INodeType;
}

/** Registers the tool type of every package node that declares `usableAsTool`, as `n8n-nodes-host.<name>Tool`. */
export function registerToolTypes(harness: EngineHarness): string[] {
	const added: string[] = [];
	for (const [name, nodeType] of [...harness.nodeTypes.types]) {
		if (!name.startsWith(`${PACKAGE_NAME}.`) || 'nodeVersions' in nodeType) continue;
		if (!(nodeType as INodeType).description.usableAsTool) continue;
		const toolName = `${name}Tool`;
		harness.registerNodeType(toolName, toolTypeOf(nodeType as INodeType));
		added.push(toolName);
	}
	return added;
}

/** A stand-in for a node that takes tools (the MCP Server Trigger, an agent): one `ai_tool` input. */
const TOOL_TAKER: INodeType = {
	description: {
		displayName: 'Tool Taker',
		name: 'toolTaker',
		group: ['transform'],
		version: 1,
		description: 'Takes tools as sub-nodes',
		defaults: { name: 'Tool Taker' },
		inputs: [{ type: NodeConnectionTypes.AiTool, displayName: 'Tools' }],
		outputs: [],
		properties: [],
	},
};
const TOOL_TAKER_TYPE = 'harness.toolTaker';

export interface ToolNodeSpec {
	name: string;
	/** Short name of the package node (`hostCloud`): its tool type is used. */
	type: string;
	parameters: INode['parameters'];
	credentials?: Record<string, string>;
	typeVersion?: number;
}

/** A tool as LangChain (and so n8n's MCP server and agents) holds it. */
export interface HarnessTool {
	name: string;
	description: string;
	schema: { shape?: Record<string, unknown> };
	invoke(args: IDataObject): Promise<string>;
}

/**
 * The tools a tool taker gets from `nodes` connected to it, built and run by n8n-core as for the MCP
 * Server Trigger: `invoke` runs the node (supply-data context) and answers what n8n passes on.
 */
export async function connectedTools(harness: EngineHarness, nodes: ToolNodeSpec[]): Promise<HarnessTool[]> {
	if (!harness.nodeTypes.types.has(TOOL_TAKER_TYPE)) harness.registerNodeType(TOOL_TAKER_TYPE, TOOL_TAKER);
	const workflow: Workflow = harness.buildWorkflow({
		nodes: [{ name: 'Tool Taker', type: TOOL_TAKER_TYPE }, ...nodes.map((node) => ({ ...node, type: `${node.type}Tool` }))],
		connections: Object.fromEntries(
			nodes.map((node) => [
				node.name,
				{ [NodeConnectionTypes.AiTool]: [[{ node: 'Tool Taker', type: NodeConnectionTypes.AiTool, index: 0 }]] },
			]),
		),
	});
	const taker = workflow.getNode('Tool Taker')!;
	const input = { main: [[{ json: {} }]] };
	const context = new ExecuteContext(
		workflow,
		taker,
		harness.additionalData(`tools-${Date.now()}`),
		'manual',
		createEmptyRunExecutionData(),
		0,
		[{ json: {} }],
		input,
		{ node: taker, data: input, source: null },
		[],
	);
	const tools = await context.getInputConnectionData(NodeConnectionTypes.AiTool, 0);
	return (Array.isArray(tools) ? tools : [tools]) as HarnessTool[];
}

/** The tools of `nodes`, in the order given (n8n lists them by connection), found by n8n's tool name for each node. */
export async function toolsFor(harness: EngineHarness, ...nodes: ToolNodeSpec[]): Promise<HarnessTool[]> {
	const tools = await connectedTools(harness, nodes);
	return nodes.map((node) => {
		const tool = tools.find((candidate) => candidate.name === nodeNameToToolName(node.name));
		if (!tool) throw new Error(`No tool for node "${node.name}" (tools: ${tools.map((candidate) => candidate.name).join(', ')})`);
		return tool;
	});
}

/**
 * Runs a tool node the way the AI Agent has the engine run it: the agent's input item with the
 * tool's arguments and a toolCallId, through the tool type. Answers the items the agent reads.
 */
export async function runAsAgentTool(harness: EngineHarness, node: ToolNodeSpec, args: IDataObject, agentInput: IDataObject = {}) {
	return await harness.runNode({ ...node, type: `${node.type}Tool` }, [{ json: { ...agentInput, ...args, toolCallId: 'call_1' } }]);
}
