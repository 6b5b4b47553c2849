/**
 * Retry On Fail of Host Cloud as an AI tool, after a submit whose answer was lost (a gateway's 502
 * after forwarding it, or a silence) and whose job the queue listed late or not at all. The docs
 * promise that a retry never pays for a second job while the first is queued or running ("When a
 * submit's answer is lost", "Retry On Fail"). n8n runs a tool two ways (test/support/tools.ts): the
 * MCP Server Trigger's supply-data context, whose retries each get a new run index (but the same
 * arguments object), and the AI Agent's engine run, whose retries keep the run index. Both must end
 * with one job; and two calls of the tool are never taken for one, even with equal arguments.
 */
import { REQUEST_TIME_LIMIT } from '../../../nodes/shared/transport/transport';
import { cloudBehindFaultProxy, EMPTY_QUEUE, hideFromQueue, isSubmit } from '../../support/cloud-behind-proxy';
import { txt2img } from '../../support/cloud';
import { registerToolTypes, runAsAgentTool, toolsFor, type ToolNodeSpec } from '../../support/tools';

const { cloud, node, proxy } = cloudBehindFaultProxy('cloud');
beforeAll(() => {
	registerToolTypes(cloud.harness);
});

const PROMPT = "={{ $fromAI('prompt', 'What the image shows, in a few words', 'string') }}";

/** Host Cloud Submit (or Execute) as a tool, through the fault proxy, with Retry On Fail (2 tries, 1.5 s apart). */
function submitTool(operation: 'submit' | 'execute' = 'submit'): ToolNodeSpec {
	const { credentials } = node({});
	return {
		name: 'Start Image',
		type: 'hostCloud',
		parameters: {
			resource: 'workflow',
			operation,
			workflow: JSON.stringify(txt2img()),
			inputOverrides: { values: [{ nodeId: '6', inputName: 'text', value: PROMPT }] },
		},
		credentials: credentials as Record<string, string>,
		...{ retryOnFail: true, maxTries: 2, waitBetweenTries: 1500 },
	} as ToolNodeSpec;
}

/** The first submit's answer is lost after it was forwarded, and the queue lists its job 3 s late. */
function loseFirstSubmitAnswer(): void {
	let hideUntil = 0;
	let lost = false;
	proxy().hook = (exchange) => {
		if (isSubmit(exchange) && !lost) {
			lost = true;
			hideUntil = Date.now() + 3000;
			return { answer: { status: 502, body: '"Bad Gateway"' }, forwardAfterMs: 0 };
		}
		if (exchange.method === 'GET' && exchange.path === '/api/queue' && Date.now() < hideUntil) return { rewrite: () => EMPTY_QUEUE };
		return undefined;
	};
}

const jobs = () => [...cloud.sim.cloud.jobs.values()];

test('as the MCP Server Trigger runs it, a retry after a lost submit follows the first job rather than paying for a second', async () => {
	cloud.sim.options.nodeMs = 2000;
	loseFirstSubmitAnswer();
	const [tool] = await toolsFor(cloud.harness, submitTool());

	const answer = await tool!.invoke({ prompt: 'a fox' }).catch((error: Error) => `error: ${error.message}`);

	// One job on the account, and the tool's answer (whatever it is) names no other.
	expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(1);
	expect(jobs()).toHaveLength(1);
	if (!answer.startsWith('error')) expect(answer).toContain(jobs()[0]!.promptId);
}, 60_000);

test('as the AI Agent has the engine run it, the same retry follows the first job (control)', async () => {
	cloud.sim.options.nodeMs = 2000;
	loseFirstSubmitAnswer();

	const result = await runAsAgentTool(cloud.harness, submitTool(), { prompt: 'a fox' });

	expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(1);
	expect(jobs()).toHaveLength(1);
	expect(result.items[0]?.json.prompt_id).toBe(jobs()[0]!.promptId);
}, 60_000);

test('two calls of the tool are two jobs, even with equal arguments: a call never takes over another call’s job', async () => {
	// Every job still running when the next call comes, so a call keyed like another would follow its job.
	cloud.sim.options.nodeMs = 5000;
	const [tool] = await toolsFor(cloud.harness, submitTool());

	const answers: string[] = [];
	for (const prompt of ['a fox', 'a cat', 'a fox']) answers.push(await tool!.invoke({ prompt }));

	expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(3);
	const ids = jobs().map((job) => job.promptId);
	expect(new Set(ids).size).toBe(3);
	answers.forEach((answer, call) => expect(answer).toContain(ids[call]));
}, 60_000);

test('Execute as the MCP Server Trigger runs it: a retry never sends again a lost submit the cloud cannot show', async () => {
	// A short job, over before the one-second time limit runs out, and the cloud lists no ended jobs:
	// its queue never shows it (so a busy machine, on which it still runs, is the same).
	REQUEST_TIME_LIMIT.ms = 1000;
	proxy().arm({ request: 'POST /api/prompt', fault: { kind: 'stall-headers', status: 200 } });
	proxy().hook = hideFromQueue;
	const [tool] = await toolsFor(cloud.harness, submitTool('execute'));

	const answer = await tool!.invoke({ prompt: 'a fox' }).catch((error: Error) => `error: ${error.message}`);

	expect(answer).toMatch(/An earlier try of this node lost the answer to its submit \(request id [0-9a-f-]{36}\)/);
	expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(1);
	expect(jobs()).toHaveLength(1);
}, 60_000);
