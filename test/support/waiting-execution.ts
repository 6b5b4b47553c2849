/**
 * A Host Media execution in "Wait for Notification" mode, run by the engine harness: the execution
 * goes to waiting with its resume URL sent to the service, and a loopback receiver stands in for
 * n8n's waiting-webhook server. It answers 409 until the execution is saved as waiting (as n8n
 * does), passes each notification to the node's webhook(), and resumes the execution with the
 * items a notification answers.
 */
import type { IDataObject, INodeExecutionData, Workflow } from 'n8n-workflow';

import type { EngineHarness, RunResult, WebhookCall, WorkflowSpec } from './engine';
import { startLoopbackServer, type LoopbackServer } from './loopback-server';

export interface WaitingExecution {
	receiver: LoopbackServer;
	/** Every answer the receiver gave the service, in order. */
	answers: number[];
	/** The run that ends with the execution waiting. */
	waiting: Promise<RunResult>;
	/** The run after a notification resumed it. */
	resumed: Promise<RunResult>;
	spec: WorkflowSpec;
	workflow: Workflow;
	/** Sends a notification straight to the waiting execution's webhook (as anyone holding the resume URL could). */
	notify(body: unknown): Promise<WebhookCall>;
}

export interface WaitingOptions {
	items?: Array<{ json: IDataObject }>;
	/** Answer this many first notifications 409, as n8n does while the execution is still being saved. */
	notSavedYet?: number;
	/** Changes each notification of the service on its way to n8n (a forger in the middle). */
	rewrite?: (body: unknown) => unknown;
}

/** Runs the Host Media node (credential `hostApi`) with `parameters` until it waits. */
export async function startWaitingExecution(
	harness: EngineHarness,
	credential: string,
	parameters: IDataObject,
	options: WaitingOptions = {},
): Promise<WaitingExecution> {
	const spec: WorkflowSpec = {
		nodes: [
			{ name: 'Input', type: 'harness.items', parameters: { items: JSON.stringify(options.items ?? [{ json: {} }]) } },
			{ name: 'Node', type: 'hostMedia', parameters: parameters as never, credentials: { hostApi: credential } },
		],
		connect: [['Input', 'Node']],
	};
	const answers: number[] = [];
	let notSavedYet = options.notSavedYet ?? 0;
	let waitingResult: RunResult | undefined;
	let resolveResumed!: (r: RunResult) => void;
	const resumed = new Promise<RunResult>((resolve) => (resolveResumed = resolve));
	const workflow = harness.buildWorkflow(spec);

	const notify = async (body: unknown): Promise<WebhookCall> => {
		const call = await harness.callWebhook(
			workflow,
			'Node',
			{ body },
			{ runExecutionData: waitingResult!.run.data, executionId: waitingResult!.executionId },
		);
		const items = call.result.workflowData as INodeExecutionData[][] | undefined;
		if (items) void harness.resume(spec, waitingResult!, items).then(resolveResumed);
		return call;
	};

	const receiver = await startLoopbackServer((req, res) => {
		const answer = (status: number, body: unknown) => {
			answers.push(status);
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(JSON.stringify(body));
		};
		if (!waitingResult || notSavedYet-- > 0) return answer(409, { message: 'The execution is not waiting yet' });
		const body = JSON.parse(req.body) as unknown;
		void notify(options.rewrite ? options.rewrite(body) : body).then((call) => answer(call.status, call.body));
	});
	const waiting = harness.run(spec, { webhookWaitingBaseUrl: `${receiver.url}/webhook-waiting` }).then((result) => {
		waitingResult = result;
		return result;
	});
	return { receiver, answers, waiting, resumed, spec, workflow, notify };
}
