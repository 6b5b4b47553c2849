/**
 * What the AI cases need around the stack: the chat-model stand-in with its OpenAI credential in
 * n8n, the agent example made reachable (a public chat webhook, the model credential bound), an
 * MCP client (the official SDK, Streamable HTTP) on an MCP Server Trigger's production URL, and
 * the tool answers read back as the client and the model receive them.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { startChatModelStandIn, type ChatModelStandIn } from './chat-model';
import type { CredentialRef, StoredWorkflow, WorkflowJson } from './n8n-client';
import type { HostStack } from './stack';

export const AGENT_EXAMPLE = 'ai-agent-image-tools.json';
export const MCP_EXAMPLE = 'mcp-server-image-tools.json';

export interface ChatModel {
	standIn: ChatModelStandIn;
	/** An "OpenAI" credential in n8n pointing at the stand-in. */
	credential: CredentialRef;
	close(): Promise<void>;
}

export async function startChatModel(stack: HostStack): Promise<ChatModel> {
	const standIn = await startChatModelStandIn();
	const credential = await stack.client.createCredential(`OpenAI stand-in ${standIn.url}`, 'openAiApi', {
		apiKey: standIn.apiKey,
		url: standIn.url,
	});
	return {
		standIn,
		credential,
		async close() {
			await stack.client.deleteCredential(credential).catch(() => undefined);
			await standIn.close();
		},
	};
}

function nodeNamed(workflow: WorkflowJson, name: string) {
	const node = workflow.nodes.find((candidate) => candidate.name === name);
	if (!node) throw new Error(`No node "${name}" in "${workflow.name}"`);
	return node;
}

/**
 * The agent example as a test reaches it: its chat made public as an embedded chat (answered
 * when the agent is done), and its model on the stand-in's credential.
 */
export function reachableAgent(workflow: WorkflowJson, model: ChatModel): WorkflowJson {
	const copy = JSON.parse(JSON.stringify(workflow)) as WorkflowJson;
	Object.assign(nodeNamed(copy, 'When chat message received').parameters, {
		public: true,
		mode: 'webhook',
		options: { responseMode: 'lastNode' },
	});
	nodeNamed(copy, 'OpenAI Chat Model').credentials = { openAiApi: { id: model.credential.id, name: model.credential.name } };
	return copy;
}

/**
 * Sends a chat message to an active agent workflow's chat webhook; answers the agent's reply. The
 * webhook may be registered a moment after the activation answered: a 404 is retried for a while.
 */
export async function chat(
	stack: HostStack,
	workflow: StoredWorkflow,
	message: string,
): Promise<{ output?: string; [key: string]: unknown }> {
	const url = stack.webhookUrl(workflow, 'When chat message received', 'chat');
	const until = Date.now() + 30000;
	for (;;) {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ action: 'sendMessage', sessionId: `e2e-${Date.now()}`, chatInput: message }),
			signal: AbortSignal.timeout(120000),
		});
		const text = await response.text();
		if (response.ok) return JSON.parse(text) as { output?: string };
		if (response.status !== 404 || Date.now() > until)
			throw new Error(`The chat webhook answered ${response.status}: ${text.slice(0, 500)}`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** The MCP example with its own path, so that several copies can be active one after the other. */
export function mcpWorkflow(workflow: WorkflowJson, path: string): WorkflowJson {
	const copy = JSON.parse(JSON.stringify(workflow)) as WorkflowJson;
	nodeNamed(copy, 'MCP Server Trigger').parameters.path = path;
	return copy;
}

/** n8n's production URL of an MCP Server Trigger (version 2 and later). */
export const mcpUrl = (stack: HostStack, path: string): string => `${stack.n8n.url}/mcp/${path}`;

/**
 * An MCP client connected over Streamable HTTP. n8n can report ready before the trigger's webhook
 * is registered, so the first connect is retried for a while.
 */
export async function connectMcp(url: string, timeoutMs = 30000): Promise<Client> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const client = new Client({ name: 'n8n-nodes-host-e2e', version: '1.0.0' });
		try {
			await client.connect(new StreamableHTTPClientTransport(new URL(url)));
			return client;
		} catch (error) {
			await client.close().catch(() => undefined);
			if (Date.now() > until) throw new Error(`No MCP server answered at ${url}: ${(error as Error).message}`);
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
	}
}

/** What a tool call gave the client: n8n's text content, and the one item in it when it is an answer. */
export interface ToolAnswer {
	isError: boolean;
	text: string;
	item?: Record<string, any>;
}

export function toolAnswerOf(answered: unknown): ToolAnswer {
	const result = answered as { isError?: boolean; content?: unknown };
	const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
	const text = content.map((part) => part.text ?? '').join('');
	let item: Record<string, any> | undefined;
	try {
		const parsed = JSON.parse(text) as unknown;
		item = (Array.isArray(parsed) ? parsed[0] : parsed) as Record<string, any>;
	} catch {
		item = undefined;
	}
	return { isError: result.isError === true, text, item };
}

/** The secrets of the stack's credentials: none may reach a client or a model. */
export function stackSecrets(stack: HostStack): string[] {
	return [stack.simulator.apiKey, stack.simulator.accessToken, ...Object.values(stack.credentialData.hostApi)].filter(
		(value) => value.length >= 8 && !/^https?:/.test(value) && value !== 'demo-publisher',
	);
}
