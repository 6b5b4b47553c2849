import { timingSafeEqual } from 'node:crypto';

import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { redactDeep } from '../shared/transport/redaction';
import { clipTextsDeep, webAddress } from '../shared/transport/service-values';
import { isRecord, ownValue } from '../shared/items/validation';
import { normaliseTask, type NormalisedTask, refuseOverBoundNotification } from '../shared/tasks/task-status';
import { newestWithin, REMEMBERED_KEYS } from '../shared/tasks/trigger-memory';

interface TriggerState {
	/** Keys of the notifications already passed on (`repeatKey`), oldest first (bounded by count and size: trigger-memory.ts). */
	seen?: string[];
}

/**
 * What makes a notification a repeat: the same task and the same status word of the service. Not
 * the shared vocabulary's word: `created` and `queueing` are both "pending", yet a real change.
 * The word is compared case-insensitively, as status words are everywhere in the package.
 */
const repeatKey = (task: { task_id?: unknown; raw_status?: unknown }): string =>
	JSON.stringify([
		String(task.task_id ?? ''),
		String(task.raw_status ?? '')
			.trim()
			.toLowerCase(),
	]);

/** The repeat memory n8n saves with the workflow (its static data), read by the webhook. */
function rememberedKeys(context: IWebhookFunctions | IExecuteFunctions): TriggerState {
	return context.getWorkflowStaticData('node') as TriggerState;
}

/** The most of a notification the item keeps as `body`, its texts clipped: a notification cannot flood the workflow. */
const BODY_MAX_CHARS = 64 * 1024;

/** The notification as the item keeps it: each text clipped, and a marker in its place when it is still larger than the bound. */
function keptBody(body: unknown): unknown {
	const clipped = clipTextsDeep(body);
	const size = JSON.stringify(clipped)?.length ?? 0;
	return size <= BODY_MAX_CHARS ? clipped : { cut: 'too large to keep', size_chars: size };
}

function safeEqual(given: string, expected: string): boolean {
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}

/** A field's value as a list: a list as it is, one value as a list of it, nothing as none. */
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** Whether a value is given (as the task reader counts addresses: empty ones are no address). */
const given = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

/**
 * The result addresses that are not http(s) web addresses, wherever the notification names them:
 * its own fields and its `data`'s, as a list or a single value. The item keeps the body as it came,
 * so an address the task's fields leave out (one not in a list, or beside the `data` they are read
 * from) would still reach the workflow.
 */
function refusedAddressesIn(body: unknown): number {
	if (!isRecord(body)) return 0;
	let refused = 0;
	for (const layer of isRecord(body.data) ? [body, body.data] : [body]) {
		for (const entry of asList(ownValue(layer, 'generated'))) if (given(entry) && !webAddress(entry)) refused++;
		for (const creation of asList(ownValue(layer, 'creations'))) {
			if (!isRecord(creation)) continue;
			const cover = ownValue(creation, 'cover_url');
			if (!webAddress(ownValue(creation, 'url'))) refused++;
			if (given(cover) && !webAddress(cover)) refused++;
		}
	}
	return refused;
}

const EVENTS = ['final', 'succeeded', 'all'];
const SECRET_LOCATIONS = ['query', 'header'];

/**
 * The trigger's settings as a notification needs them, or what is wrong with them. Expressions may
 * give a number (read as text) or a value that cannot be one (a list or object: refused).
 */
function triggerSettings(context: IWebhookFunctions): { secret: string; location: string; events: string } | string {
	const rawSecret = context.getNodeParameter('secret', '') as unknown;
	if (rawSecret !== null && rawSecret !== undefined && typeof rawSecret !== 'string' && typeof rawSecret !== 'number') {
		return `The trigger's Shared Secret is ${Array.isArray(rawSecret) ? 'a list' : typeof rawSecret === 'object' ? 'an object' : `a ${typeof rawSecret}`}; it must be text`;
	}
	const secret = String(rawSecret ?? '');
	const location = context.getNodeParameter('secretLocation', 'query') as unknown;
	if (secret && !SECRET_LOCATIONS.includes(location as string)) {
		return `The trigger's Secret Location is "${String(location)}"; use query or header`;
	}
	const events = context.getNodeParameter('events', 'final') as unknown;
	if (!EVENTS.includes(events as string)) return `The trigger's Events is "${String(events)}"; use final, succeeded or all`;
	return { secret, location: location as string, events: events as string };
}

/** Answers the notification with `status` and the error in words; no workflow starts. */
function refused(context: IWebhookFunctions, status: number, error: string, message: string): IWebhookResponseData {
	context.getResponseObject().status(status).json({ error, message });
	return { noWebhookResponse: true };
}

/** Whether the notification carries the shared secret where the trigger expects it (always, when none is set). */
function secretMatches(context: IWebhookFunctions, settings: { secret: string; location: string }): boolean {
	if (!settings.secret) return true;
	const given =
		settings.location === 'header'
			? String(context.getHeaderData()['x-host-secret'] ?? '')
			: String((context.getQueryData() as IDataObject).secret ?? '');
	return safeEqual(given, settings.secret);
}

/** Why a valid notification starts nothing (a status not selected, a task not in the filter, a repeat), or undefined when it starts the workflow. */
function whyIgnored(context: IWebhookFunctions, task: NormalisedTask, events: string): string | undefined {
	if ((events === 'final' && !task.final) || (events === 'succeeded' && task.status !== 'succeeded'))
		return `status ${task.raw_status} is not selected`;
	const ids = context.getNodeParameter('taskIds', '') as unknown;
	const filter = (Array.isArray(ids) ? ids.map((id) => String(id ?? '')) : String(ids ?? '').split(','))
		.map((id) => id.trim())
		.filter(Boolean);
	if (filter.length > 0 && !filter.includes(task.task_id)) return 'task id not in the filter';
	// Only read here: n8n (2.41) does not save what a webhook call changes in the static data once
	// the workflow has some, so the execution records what was passed on (execute, below).
	const seen = rememberedKeys(context).seen;
	if ((context.getNodeParameter('ignoreRepeated', true) as boolean) && Array.isArray(seen) && seen.includes(repeatKey(task)))
		return 'repeated notification';
	return undefined;
}

export class HostTaskTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Host Task Trigger',
		name: 'hostTaskTrigger',
		icon: { light: 'file:../../icons/host-task-trigger.svg', dark: 'file:../../icons/host-task-trigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		// One wording per Events option ("Succeeded Tasks Only" showed as "Every status change").
		subtitle:
			'={{$parameter["events"] === "succeeded" ? "Succeeded tasks" : $parameter["events"] === "all" ? "Every status change" : "Finished tasks"}}',
		description: 'Starts the workflow when a Host media task (image or video) sends a status notification',
		defaults: { name: 'Host Task Trigger' },
		// What the editor's trigger panel says; without it n8n makes up "Pull in events from Host Task".
		triggerPanel: {
			header: 'Pull in status notifications of Host Media tasks',
			executionsHelp: {
				inactive:
					"<b>While building your workflow</b>, click the 'execute step' button, then give the test URL (under <i>Webhook URLs</i>) to a Host Media task as its webhook URL (image tasks) or callback URL (video tasks). The notification the trigger accepts starts an execution, which will show up in this editor.<br /> <br /><b>Once you're happy with your workflow</b>, publish it and give your tasks the production URL. Then every notification the trigger accepts starts the workflow. These executions will show up in the <a data-key='executions'>executions list</a>, but not in the editor.",
				active:
					"<b>While building your workflow</b>, click the 'execute step' button, then give the test URL (under <i>Webhook URLs</i>) to a Host Media task as its webhook URL (image tasks) or callback URL (video tasks). The notification the trigger accepts starts an execution, which will show up in this editor.<br /> <br /><b>Your workflow will also execute automatically</b>, since it's published: every notification sent to the production URL that the trigger accepts starts it. These executions will show up in the <a data-key='executions'>executions list</a>, but not in the editor.",
			},
			activationHint: {
				inactive:
					'Once you’ve finished building your workflow, publish it and give your Host Media tasks its production URL (you just won’t see those executions here).',
				active:
					'This node also starts the workflow for the notifications Host Media tasks send to its production URL (but those executions won’t show up here).',
			},
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty: n8n then answers with the webhook's own response ({"received": true}); without
				// it n8n 2.41 answers an accepted notification with the text "firstEntryJson".
				responseData: '',
				path: 'host-task',
			},
		],
		properties: [
			{
				displayName:
					"Give this node's Production URL to a Host Media task as its webhook URL (image tasks) or callback URL (video tasks), e.g. with Host Media's \"Don't Wait\" mode",
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'options',
				options: [
					{
						name: 'Finished Tasks Only',
						value: 'final',
						action: 'When a task finishes',
						description: 'Succeeded or failed: nothing will change any more',
					},
					{
						name: 'Succeeded Tasks Only',
						value: 'succeeded',
						action: 'When a task succeeds',
						description: 'Only tasks that produced their result',
					},
					{
						name: 'Every Status Change',
						value: 'all',
						action: 'When a task changes status',
						description: 'Every status the service reports, e.g. created, queueing, processing and the final one',
					},
				],
				default: 'final',
				description: 'Which notifications start the workflow; the others are acknowledged and ignored',
			},
			{
				displayName: 'Task ID Filter',
				name: 'taskIds',
				type: 'string',
				default: '',
				placeholder: '9d3c…, 4b1e…',
				description: 'Only start for these task IDs (comma-separated). Leave empty for all tasks.',
			},
			{
				displayName: 'Ignore Repeated Notifications',
				name: 'ignoreRepeated',
				type: 'boolean',
				default: true,
				description:
					'Whether to start only once per task and status, the status as the service words it (created and queueing are two changes). The service retries and may repeat notifications; with this on, a repeat is acknowledged but does not start the workflow again.',
			},
			{
				displayName: 'Shared Secret',
				name: 'secret',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				description:
					'If set, a notification must carry this value (see Secret Location) or it is refused with 401 before anything runs. Add it to the URL you give the task, e.g. ?secret=… .',
			},
			{
				displayName: 'Secret Location',
				name: 'secretLocation',
				type: 'options',
				displayOptions: { hide: { secret: [''] } },
				options: [
					{ name: 'Query Parameter "Secret"', value: 'query' },
					{ name: 'Header "X-Host-Secret"', value: 'header' },
				],
				default: 'query',
				description: 'Where the notification carries the shared secret',
			},
		],
	};

	webhookMethods = {
		default: {
			// The service has no webhook registry: the URL travels with each task, so there is
			// nothing to create or delete on its side. These must not touch the workflow's static
			// data either: n8n saves the activation's copy of it after the first notifications have
			// been handled, which would wipe the memory of repeated notifications.
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const settings = triggerSettings(this);
		// A notification must not start a workflow that reads its settings wrongly (every change
		// for a misspelt Events, "[object Object]" as the secret): answered 500, so the service
		// retries once the trigger is fixed.
		if (typeof settings === 'string') return refused(this, 500, 'trigger_misconfigured', settings);
		if (!secretMatches(this, settings)) return refused(this, 401, 'unauthorized', 'Missing or wrong shared secret');
		const overBound = refuseOverBoundNotification(this);
		if (overBound) return overBound;
		// A service that echoes the shared secret must not put it into the workflow's data.
		const body = redactDeep(this.getBodyData(), [settings.secret]);
		const task = normaliseTask(body);
		if (!task)
			return refused(
				this,
				400,
				'invalid_notification',
				'Expected a task notification: a JSON object with task_id and status, task_status or state',
			);
		// Only web addresses are passed on: a notification naming a result elsewhere (javascript:, file:) starts nothing.
		const refusedAddresses = refusedAddressesIn(body);
		if (refusedAddresses) {
			const are = refusedAddresses === 1 ? 'is' : 'are';
			return refused(
				this,
				400,
				'invalid_notification',
				`${refusedAddresses} of the notification's result addresses ${are} not an http(s) web address`,
			);
		}
		const ignored = whyIgnored(this, task, settings.events);
		if (ignored) return { webhookResponse: { received: true, ignored } };
		const json = { ...task, received_at: new Date().toISOString(), body: keptBody(body) } as unknown as IDataObject;
		return { webhookResponse: { received: true }, workflowData: [[{ json }]] };
	}

	/**
	 * Runs first in the execution a notification started (on a worker in queue mode), before any
	 * other node: it checks and records the notification in n8n's processed-data store (one row per
	 * trigger in n8n's database, shared by every n8n process) and passes on only what was not
	 * passed on before. A repeat that came while an earlier execution of the same task and status
	 * was still starting or running ends here, with no items. The key also goes into the static
	 * data, which n8n saves when the execution ends, so that later repeats are answered by the
	 * webhook without starting anything. Test runs (manual mode) are passed on and not recorded.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData().map((item, index) => ({ ...item, pairedItem: { item: index } }));
		if (this.getMode() === 'manual' || !(this.getNodeParameter('ignoreRepeated', 0, true) as boolean)) return [items];
		const keys = items.map((item) => repeatKey(item.json));
		const record = async () => await this.helpers.checkProcessedAndRecord(keys, 'node', { mode: 'entries', maxEntries: REMEMBERED_KEYS });
		// The trigger's very first executions may both create its record at once; the one that loses
		// the race finds the record there on a second try.
		const recorded = await record().catch(record);
		const fresh = new Set(recorded.new.map(String));
		if (fresh.size > 0) {
			const state = rememberedKeys(this);
			const seen = Array.isArray(state.seen) ? state.seen : [];
			// A new list, assigned: n8n notices an assignment to the node's static data.
			state.seen = newestWithin([...seen.filter((key) => !fresh.has(key)), ...fresh]);
		}
		return [items.filter((_item, index) => fresh.has(keys[index]!))];
	}
}
