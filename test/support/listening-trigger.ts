/**
 * An active Host Cloud Trigger the way n8n (2.41) runs one: built from the workflow's saved static
 * data, activated through n8n-core's own TriggerContext, and saved as n8n saves it (after the
 * activation, and on each emit; never on a test run). `restart()` is n8n stopping and starting
 * again: the trigger is closed and activated anew from what was saved.
 */
import { TriggerContext } from 'n8n-core';
import type { IDataObject, INodeExecutionData, INodeParameters, INodeType, ITriggerResponse, WorkflowExecuteMode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import type { EngineHarness } from './engine';
import { waitUntil } from './wait';

let workflowCounter = 0;

export class ListeningTrigger {
	/** The static data as n8n's database holds it (JSON text; empty while none was saved). */
	savedStaticData = '';
	/** Each item the trigger started a flow with, in order. */
	readonly items: INodeExecutionData[] = [];
	/** When each of those flows started (Date.now()). */
	readonly startedAt: number[] = [];
	/** What the trigger reported with emitError. */
	readonly errors: Error[] = [];
	/** The execution keys given with each flow: n8n 2.x refuses a second execution for a key (counted in `refusedByKey`). */
	readonly keys = new Set<string>();
	refusedByKey = 0;
	private response?: ITriggerResponse;
	private readonly workflowId = `wf-cloud-trigger-${++workflowCounter}`;

	constructor(
		private readonly harness: EngineHarness,
		private readonly credential: string,
		private readonly parameters: INodeParameters = {},
	) {}

	private loadWorkflow(): Workflow {
		const built = this.harness.buildWorkflow({
			nodes: [{ name: 'Trigger', type: 'hostCloudTrigger', parameters: this.parameters, credentials: { hostCloudApi: this.credential } }],
		});
		return new Workflow({
			id: this.workflowId,
			name: 'Listening trigger',
			nodes: Object.values(built.nodes),
			connections: {},
			active: true,
			nodeTypes: this.harness.nodeTypes,
			staticData: this.savedStaticData ? (JSON.parse(this.savedStaticData) as IDataObject) : undefined,
			settings: { executionOrder: 'v1' },
		});
	}

	/** What the trigger remembers, as saved. */
	get memory(): { done?: string[]; watching?: string[]; historyRead?: boolean } {
		const data = this.savedStaticData ? (JSON.parse(this.savedStaticData) as Record<string, IDataObject>) : {};
		return (data['node:Trigger'] ?? {}) as never;
	}

	/** Activates the trigger (a published workflow), or runs it as the editor's test run does. */
	async activate(mode: WorkflowExecuteMode = 'trigger'): Promise<void> {
		const workflow = this.loadWorkflow();
		const node = workflow.getNode('Trigger')!;
		const save = () => {
			if (mode !== 'manual' && (workflow.staticData as IDataObject).__dataChanged === true) {
				(workflow.staticData as IDataObject).__dataChanged = false;
				this.savedStaticData = JSON.stringify(workflow.staticData);
			}
		};
		const context = new TriggerContext(
			workflow,
			node,
			this.harness.additionalData(`${this.workflowId}-trigger`),
			mode,
			'activate',
			(data, _response, _done, key) => {
				save();
				if (key !== undefined && this.keys.has(key)) {
					this.refusedByKey++;
					return;
				}
				if (key !== undefined) this.keys.add(key);
				const items = data[0] ?? [];
				this.items.push(...items);
				this.startedAt.push(...items.map(() => Date.now()));
			},
			(error) => {
				this.errors.push(error);
			},
		);
		const type = this.harness.nodeTypes.getByNameAndVersion(node.type) as INodeType;
		const response = await type.trigger!.call(context);
		this.response = response;
		save();
		if (mode === 'manual') await response?.manualTriggerFunction?.();
	}

	/** Deactivates it (n8n stopping). */
	async close(): Promise<void> {
		await this.response?.closeFunction?.();
		this.response = undefined;
	}

	/** n8n stopped and started again: a new trigger from what was saved. */
	async restart(): Promise<void> {
		await this.close();
		await this.activate();
	}

	/** Waits until the trigger has started `count` flows in all (up to 30 s unless told: a hang guard, which a busy machine needs). */
	async flows(count: number, timeoutMs = 30_000): Promise<INodeExecutionData[]> {
		await waitUntil(() => this.items.length >= count, timeoutMs).catch(() => {
			throw new Error(`the trigger started ${this.items.length} flows, not ${count}`);
		});
		return this.items.slice(0, count);
	}
}
