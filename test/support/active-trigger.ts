/**
 * An active Host Task Trigger the way a real n8n (2.41) runs it, for engine tests of its repeat
 * memory. Per notification n8n builds the workflow afresh from the static data saved in its
 * database, calls the trigger's webhook, and saves what the webhook changed in the static data
 * only while the workflow had none (once it has some, n8n loses the change before saving); an execution then
 * starts with what the webhook passed on, the trigger's `execute` running first, and the static
 * data that execution changed is saved when it ends. n8n's processed-data store (one record per
 * trigger node in its database) is kept in memory here, shared by every trigger of the test file.
 */
import { DataDeduplicationService, WorkflowExecute } from 'n8n-core';
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDataObject,
	IDeduplicationOutput,
	INodeExecutionData,
	INodeParameters,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';

import type { EngineHarness, WebhookCall, WebhookRequest } from './engine';

/** n8n's processed-data store in "entries" mode (what the trigger uses), one list per workflow and node. */
class ProcessedDataInMemory implements IDataDeduplicator {
	private readonly records = new Map<string, string[]>();

	private key(scope: DeduplicationScope, contextData: ICheckProcessedContextData): string {
		return `${contextData.workflow.id}|${scope === 'node' ? contextData.node?.id : ''}`;
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		if (options.mode !== 'entries') throw new Error(`The in-memory processed-data store only knows "entries" mode, not ${options.mode}`);
		const record = this.records.get(this.key(scope, contextData)) ?? [];
		const output: IDeduplicationOutput = { new: [], processed: [] };
		for (const item of items) {
			if (record.includes(String(item))) output.processed.push(item);
			else {
				output.new.push(item);
				record.push(String(item));
			}
		}
		if (options.maxEntries) record.splice(0, Math.max(0, record.length - options.maxEntries));
		this.records.set(this.key(scope, contextData), record);
		return output;
	}

	async removeProcessed(): Promise<void> {
		throw new Error('not used by the package');
	}

	async clearAllProcessedItems(): Promise<void> {
		throw new Error('not used by the package');
	}

	async getProcessedDataCount(): Promise<number> {
		throw new Error('not used by the package');
	}
}

let storeReady: Promise<void> | undefined;
let workflowCounter = 0;

export interface Delivery {
	/** What n8n answers the service. */
	call: WebhookCall;
	/** Whether an execution was started (the webhook passed the notification on). */
	started: boolean;
	/** What the trigger passed on to the rest of the workflow in that execution. */
	passedOn: INodeExecutionData[];
}

export class ActiveTrigger {
	/** The workflow's static data as n8n keeps it in its database (JSON text; empty while there is none). */
	savedStaticData = '';
	private readonly workflowId = `wf-active-trigger-${++workflowCounter}`;

	constructor(
		private readonly harness: EngineHarness,
		private readonly parameters: INodeParameters = {},
		private readonly mode: WorkflowExecuteMode = 'webhook',
	) {
		storeReady ??= DataDeduplicationService.init(new ProcessedDataInMemory());
	}

	/** The workflow as n8n builds it for one request or execution: from the saved static data. */
	private loadWorkflow(): Workflow {
		const built = this.harness.buildWorkflow({ nodes: [{ name: 'Trigger', type: 'hostTaskTrigger', parameters: this.parameters }] });
		return new Workflow({
			id: this.workflowId,
			name: 'Active trigger',
			nodes: Object.values(built.nodes),
			connections: {},
			active: true,
			nodeTypes: this.harness.nodeTypes,
			staticData: this.savedStaticData ? (JSON.parse(this.savedStaticData) as IDataObject) : undefined,
			settings: { executionOrder: 'v1' },
		});
	}

	/** The repeat memory as saved (what the webhook reads). */
	get remembered(): string[] {
		const data = this.savedStaticData ? (JSON.parse(this.savedStaticData) as Record<string, { seen?: string[] }>) : {};
		return data['node:Trigger']?.seen ?? [];
	}

	/** A notification delivered and its execution (if one started) run to its end. */
	async deliver(body: unknown, request: Omit<WebhookRequest, 'body'> = {}): Promise<Delivery> {
		return await (await this.receive(body, request)).run();
	}

	/**
	 * Only the webhook's part: n8n has answered the service; `run()` then runs the execution it
	 * started. Receive twice before running, and the second notification came while the first's
	 * execution had not ended.
	 */
	async receive(body: unknown, request: Omit<WebhookRequest, 'body'> = {}): Promise<{ call: WebhookCall; run(): Promise<Delivery> }> {
		await storeReady;
		const hooked = this.loadWorkflow();
		const call = await this.harness.callWebhook(hooked, 'Trigger', { ...request, body });
		// n8n keeps the webhook's change only while the workflow had no static data at all.
		if (!this.savedStaticData && (hooked.staticData as IDataObject).__dataChanged === true) {
			this.savedStaticData = JSON.stringify(hooked.staticData);
		}
		const emitted = call.result.workflowData;
		if (!emitted) return { call, run: async () => ({ call, started: false, passedOn: [] }) };
		// The execution's copy of the static data is read when it is created, as n8n does.
		const workflow = this.loadWorkflow();
		return {
			call,
			run: async () => {
				const node = workflow.getNode('Trigger')!;
				const runData = createRunExecutionData({
					executionData: { nodeExecutionStack: [{ node, data: { main: emitted }, source: null }] },
				});
				const execution = new WorkflowExecute(this.harness.additionalData(`${this.workflowId}-run`), this.mode, runData);
				const run = await execution.processRunExecutionData(workflow);
				if (run.data.resultData.error) throw new Error(`The trigger's execution failed: ${run.data.resultData.error.message}`);
				if ((workflow.staticData as IDataObject).__dataChanged === true) this.savedStaticData = JSON.stringify(workflow.staticData);
				return { call, started: true, passedOn: run.data.resultData.runData.Trigger?.[0]?.data?.main?.[0] ?? [] };
			},
		};
	}
}
