/**
 * How the AI examples run in the e2e suite (the entries cases/examples.ts adds to EXAMPLE_CHECKS):
 * the agent is chatted with through a public chat webhook, its model the chat-completions
 * stand-in; the MCP server is published on a path of its own and an MCP client calls a tool. The
 * execution each started is what the generic checks read; `verify` checks the tool's answer as the
 * model or the client got it.
 */
import {
	AGENT_EXAMPLE,
	chat,
	connectMcp,
	MCP_EXAMPLE,
	mcpUrl,
	mcpWorkflow,
	reachableAgent,
	startChatModel,
	toolAnswerOf,
	type ChatModel,
} from './ai-tools';
import type { ExampleCheck } from './example-checks';
import { outputItems, type StoredWorkflow } from './n8n-client';

function fail(message: string): never {
	throw new Error(message);
}

/** A tool answer as the model or client got it: a finished image job with its link. */
function completedImage(text: string | undefined, what: string): void {
	const item = text === undefined ? undefined : toolAnswerOf({ content: [{ type: 'text', text }] }).item;
	const output = (item?.outputs as Array<{ kind?: string; url?: string }> | undefined)?.[0];
	if (item?.status !== 'completed' || output?.kind !== 'image' || !output.url)
		fail(`${what} is not a finished image job with a link: ${String(text).slice(0, 300)}`);
}

/** The agent example, its copy with a public chat webhook and the stand-in's credential (as a user picks theirs). */
function agentExampleCheck(): ExampleCheck {
	let model: ChatModel | undefined;
	let stored: StoredWorkflow | undefined;
	return {
		timeoutMs: 120000,
		async run(_stored, stack) {
			const example = stack.examples.find((entry) => entry.file === AGENT_EXAMPLE) ?? fail(`${AGENT_EXAMPLE} was not imported`);
			model = await startChatModel(stack);
			model.standIn.nextToolCall = { name: 'Generate_Image', arguments: { prompt: 'a paper boat on a pond' } };
			stored = await stack.importWorkflow(reachableAgent(example.workflow, model), `${example.workflow.name} (e2e, chat)`, {
				openAiApi: model.credential,
			});
			await stack.client.activateWorkflow(stored.id);
			const known = await stack.client.executionIds(stored.id);
			await chat(stack, stored, 'Draw a paper boat');
			return await stack.client.waitForNewExecution(stored.id, known, { timeoutMs: 60000 });
		},
		verify(execution) {
			completedImage(model?.standIn.toolResults().at(-1), 'What Generate Image answered the model');
			const [reply] = outputItems(execution, 'AI Agent');
			if (!String(reply?.json.output ?? '').includes('"status":"completed"'))
				fail(`The agent did not pass the tool's answer on: ${JSON.stringify(reply?.json).slice(0, 300)}`);
		},
		async cleanup(stack) {
			if (stored) await stack.client.deactivateWorkflow(stored.id);
			await model?.close();
			model = stored = undefined;
		},
	};
}

/** The MCP example is published on a path of its own and an MCP client calls Generate_Image; the call's execution is checked. */
function mcpExampleCheck(): ExampleCheck {
	let stored: StoredWorkflow | undefined;
	let answered: string | undefined;
	return {
		timeoutMs: 120000,
		async run(_stored, stack) {
			const example = stack.examples.find((entry) => entry.file === MCP_EXAMPLE) ?? fail(`${MCP_EXAMPLE} was not imported`);
			const path = `host-image-tools-example-${Date.now()}`;
			stored = await stack.importWorkflow(mcpWorkflow(example.workflow, path), `${example.workflow.name} (e2e, published)`);
			await stack.client.activateWorkflow(stored.id);
			const client = await connectMcp(mcpUrl(stack, path));
			try {
				const known = await stack.client.executionIds(stored.id);
				answered = toolAnswerOf(await client.callTool({ name: 'Generate_Image', arguments: { prompt: 'a paper boat' } })).text;
				return await stack.client.waitForNewExecution(stored.id, known, { timeoutMs: 60000 });
			} finally {
				await client.close();
			}
		},
		verify() {
			completedImage(answered, 'What Generate_Image answered the MCP client');
		},
		async cleanup(stack) {
			if (stored) await stack.client.deactivateWorkflow(stored.id);
			stored = answered = undefined;
		},
	};
}

export const AI_EXAMPLE_CHECKS: Record<string, ExampleCheck> = {
	[AGENT_EXAMPLE]: agentExampleCheck(),
	[MCP_EXAMPLE]: mcpExampleCheck(),
};
