/**
 * A small stand-in for an OpenAI-compatible chat model, on loopback: n8n's OpenAI Chat Model node
 * (version 1.2, which speaks chat completions) calls `POST <url>/chat/completions` here. It is
 * scripted as a model that uses one tool: to a user's message it answers a call of the tool the
 * test chose (`nextToolCall`), and once the conversation holds the tool's result it answers a final
 * text that quotes that result. Every request is kept, so a test can read what n8n offered the
 * model (tool names, descriptions, argument schemas) and what the model received from the tool.
 * It answers plain JSON, or server-sent events when the request asks to stream.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool';
	content: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
	tool_call_id?: string;
}

export interface OfferedTool {
	type: 'function';
	function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: OfferedTool[];
	stream?: boolean;
	/** The Authorization header as received. */
	authorization?: string;
}

export interface ToolCallPlan {
	/** The tool to call, by the name n8n gave it. */
	name: string;
	arguments: Record<string, unknown>;
}

export interface ChatModelStandIn {
	/** The base URL for the credential: http://127.0.0.1:<port>/v1 */
	url: string;
	apiKey: string;
	requests: ChatRequest[];
	/** What the model calls when a user's message comes in (set before each chat). */
	nextToolCall?: ToolCallPlan;
	/** The tool results the model has received, in order. */
	toolResults(): string[];
	close(): Promise<void>;
}

const text = (content: ChatMessage['content']): string =>
	typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => part.text ?? '').join('') : '';

/** The assistant's next message: a tool call to a new question, a final text once the tool has answered. */
function reply(
	request: ChatRequest,
	plan: ToolCallPlan | undefined,
	turn: number,
): { content: string | null; toolCall?: ToolCallPlan & { id: string } } {
	const last = request.messages[request.messages.length - 1];
	if (last?.role === 'tool') return { content: `The tool answered: ${text(last.content)}` };
	if (!plan) return { content: 'No tool was planned for this conversation.' };
	const offered = request.tools?.some((tool) => tool.function.name === plan.name);
	if (!offered)
		return {
			content: `The tool ${plan.name} was not offered (offered: ${(request.tools ?? []).map((tool) => tool.function.name).join(', ')}).`,
		};
	return { content: null, toolCall: { ...plan, id: `call_${turn}` } };
}

function completion(model: string, turn: number, message: ReturnType<typeof reply>) {
	const toolCalls = message.toolCall
		? [
				{
					id: message.toolCall.id,
					type: 'function',
					function: { name: message.toolCall.name, arguments: JSON.stringify(message.toolCall.arguments) },
				},
			]
		: undefined;
	return {
		id: `chatcmpl-${turn}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model,
		choices: [
			{
				index: 0,
				message: { role: 'assistant', content: message.content, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
				finish_reason: toolCalls ? 'tool_calls' : 'stop',
			},
		],
		usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
	};
}

/** The same answer as server-sent events: one chunk with the content or tool call, one that ends it. */
function streamed(res: ServerResponse, model: string, turn: number, message: ReturnType<typeof reply>): void {
	const base = { id: `chatcmpl-${turn}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
	const delta = message.toolCall
		? {
				role: 'assistant',
				tool_calls: [
					{
						index: 0,
						id: message.toolCall.id,
						type: 'function',
						function: { name: message.toolCall.name, arguments: JSON.stringify(message.toolCall.arguments) },
					},
				],
			}
		: { role: 'assistant', content: message.content ?? '' };
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
	const finish = message.toolCall ? 'tool_calls' : 'stop';
	res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] })}\n\n`);
	res.end('data: [DONE]\n\n');
}

async function bodyOf(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

export async function startChatModelStandIn(): Promise<ChatModelStandIn> {
	const requests: ChatRequest[] = [];
	let turn = 0;
	const standIn: ChatModelStandIn = {
		url: '',
		apiKey: 'sk-stand-in-for-tests',
		requests,
		toolResults: () =>
			requests.flatMap((request) => {
				const last = request.messages[request.messages.length - 1];
				return last?.role === 'tool' ? [text(last.content)] : [];
			}),
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
	const server = createServer((req, res) => {
		void (async () => {
			if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
				res.writeHead(404, { 'content-type': 'application/json' });
				return void res.end(JSON.stringify({ error: { message: `No route ${req.method} ${req.url}` } }));
			}
			const request = JSON.parse(await bodyOf(req)) as ChatRequest;
			request.authorization = req.headers.authorization;
			requests.push(request);
			const message = reply(request, standIn.nextToolCall, ++turn);
			if (request.stream) return streamed(res, request.model, turn, message);
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(completion(request.model, turn, message)));
		})().catch((error: Error) => {
			res.writeHead(500, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ error: { message: error.message } }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
	return standIn;
}
