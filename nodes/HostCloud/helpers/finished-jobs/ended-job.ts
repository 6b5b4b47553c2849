/**
 * finished-jobs/: the Host Cloud Trigger's side of Host Cloud. This file is the folder's entry: a
 * job that ended anywhere on the account or server, whether the trigger's filters pass it on, and
 * the item it starts a flow with. `cloud-listener.ts` hears the cloud's jobs end on the account's
 * WebSocket; `history-poller.ts` reads a self-hosted server's history; `settings.ts` reads the
 * trigger's parameters and `memory.ts` what it remembers. The folder may call job-reports/ (a job
 * as the server reports it, shared with Execute), progress-socket/, ownership/ (the job tag),
 * transport/ and nodes/shared; never jobs/, which is Execute's.
 */
import type { IDataObject, INodeExecutionData, ITriggerFunctions } from 'n8n-workflow';

import { placeOf, type ServerKind } from '../../../../credentials/cloud-server';
import { clipText, clipTextsDeep } from '../../../shared/transport/service-values';
import { isRecord, ownValue } from '../../../shared/items/validation';
import { describeExecutionError, type ExecutionErrorInfo } from '../job-reports/execution-errors';
import { filesItem } from '../job-reports/files-item';
import { jobTagOf, madeByThisInstall } from '../ownership/job-tag';
import type { TriggerSettings } from './settings';

/** How a job ended, in the trigger's words. */
export type JobEnd = 'succeeded' | 'failed' | 'interrupted';

/** A job that ended, as the trigger learned it. */
export interface EndedJob {
	promptId: string;
	end: JobEnd;
	/** Its outputs by node id; undefined when they could not be read whole. */
	outputs?: Record<string, unknown>;
	/** Why it failed, when the service said. */
	error?: ExecutionErrorInfo;
	/**
	 * Who started it, when a Host Cloud node of this n8n did: its tag (`extra_data.n8n`, seen in its
	 * queue or history entry) names this install. Only the fields the item shows are kept.
	 */
	startedBy?: IDataObject;
	/** The class of each node of its graph that Only Outputs of Nodes names (by id or class), when the graph was seen. */
	classes?: Record<string, string>;
}

/** What a queue or history entry tells of its job beyond its end. */
export type JobFacts = Pick<EndedJob, 'startedBy' | 'classes'>;

/** The job's end from the package's status words (completed, failed, cancelled), or undefined while it runs. */
export function endOf(status: unknown): JobEnd | undefined {
	if (status === 'completed') return 'succeeded';
	if (status === 'failed') return 'failed';
	return status === 'cancelled' ? 'interrupted' : undefined;
}

/**
 * What a queue or history entry (`[number, prompt_id, prompt, extra_data, output node ids]`) says
 * of its job: who started it, when its tag names this install, and the class of each node the
 * filter names. Nothing else of the entry is kept: a client chooses its extra_data and graph, so
 * they may be of any size (only texts, and only for nodes of a graph).
 */
export function entryFacts(entry: unknown, settings: Pick<TriggerSettings, 'instanceId' | 'outputNodes'>): JobFacts {
	if (!Array.isArray(entry)) return {};
	const tag = jobTagOf(entry[3]);
	const startedBy = tag && madeByThisInstall(tag, settings.instanceId) ? startedByOf(tag) : undefined;
	return { ...(startedBy ? { startedBy } : {}), classes: namedClasses(entry[2], settings.outputNodes) };
}

/** The class of each node of a graph whose id or class the filter names (none when it names none). */
function namedClasses(graph: unknown, outputNodes: string[]): Record<string, string> {
	const classes: Record<string, string> = {};
	if (!isRecord(graph) || outputNodes.length === 0) return classes;
	for (const [id, node] of Object.entries(graph).slice(0, MAX_GRAPH_NODES)) {
		const type = isRecord(node) ? node.class_type : undefined;
		if (typeof type !== 'string' || !(outputNodes.includes(id) || outputNodes.includes(type))) continue;
		Object.defineProperty(classes, clipText(id, 256), { value: clipText(type, 256), enumerable: true });
	}
	return classes;
}

/** The most nodes of a graph the trigger learns the classes of (a graph is kept only while its job runs). */
const MAX_GRAPH_NODES = 2000;

/** Whether a node's outputs are among those the trigger was asked for (by node id or class); all when none were named. */
function wantedNode(job: EndedJob, nodeId: string, settings: TriggerSettings): boolean {
	if (settings.outputNodes.length === 0) return true;
	const type = job.classes ? ownValue(job.classes, nodeId) : undefined;
	return settings.outputNodes.some((wanted) => wanted === nodeId || wanted === type);
}

/** The job's outputs from the nodes the trigger was asked for. */
function wantedOutputs(job: EndedJob, settings: TriggerSettings): Record<string, unknown> {
	const outputs = job.outputs ?? {};
	return Object.fromEntries(Object.entries(outputs).filter(([nodeId]) => wantedNode(job, nodeId, settings)));
}

/**
 * Whether a job starts the flow: its end is one asked for; it was not started by a Host Cloud node
 * of this n8n (unless those are wanted); and, when output nodes are named, a succeeded job has outputs from one
 * of them, and another one's graph (when seen) holds one of them.
 */
export function passesFilters(job: EndedJob, settings: TriggerSettings): boolean {
	if (settings.events === 'succeeded' && job.end !== 'succeeded') return false;
	if (!settings.includeOwnJobs && job.startedBy) return false;
	if (settings.outputNodes.length === 0) return true;
	if (Object.keys(wantedOutputs(job, settings)).length > 0) return true;
	if (job.end === 'succeeded') return false;
	return Object.keys(job.classes ?? {}).some((nodeId) => wantedNode(job, nodeId, settings));
}

/** Who started the job, from its tag: the n8n workflow, execution and node (none of it secret). */
function startedByOf(tag: Record<string, unknown>): IDataObject {
	const text = (key: string) => {
		const value = ownValue(tag, key);
		return typeof value === 'string' ? clipText(value, 256) : undefined;
	};
	return { workflow_id: text('workflow_id'), execution_id: text('execution_id'), node_name: text('node_name') };
}

/**
 * The item a finished job starts the flow with: `{prompt_id, status, images, videos, audio,
 * files, …}` as Host Cloud's Execute answers, the failure in words, who started it (when a Host
 * Cloud node did), and the files as binary data when asked.
 */
export async function endedJobItem(
	context: ITriggerFunctions,
	job: EndedJob,
	settings: TriggerSettings,
	kind: ServerKind,
): Promise<INodeExecutionData> {
	const json: IDataObject = { prompt_id: job.promptId, status: job.end };
	if (job.error || job.end === 'failed') {
		const error = job.error ?? { exception_type: '', exception_message: '' };
		const words = describeExecutionError(job.promptId, error, placeOf(kind));
		json.error = clipTextsDeep({
			message: words.message,
			description: words.description,
			exception_type: error.exception_type,
			...(error.node_id ? { node_id: error.node_id } : {}),
			...(error.node_type ? { node_type: error.node_type } : {}),
		});
	}
	let binary: INodeExecutionData['binary'];
	if (job.outputs === undefined) {
		json.images = [];
		json.videos = [];
		json.audio = [];
		json.files = [];
		json.outputs_unknown = `The trigger did not hear all of job ${job.promptId}'s messages and ${placeOf(kind)} has no record of its outputs, so its files are not listed. Get Status with this prompt_id may still read them.`;
	} else {
		try {
			const download = settings.download ? { binaryPropertyName: settings.binaryPropertyName } : undefined;
			const files = await filesItem(context, wantedOutputs(job, settings), 0, job.promptId, download);
			Object.assign(json, files.json);
			binary = files.binary;
		} catch (error) {
			// The job ended all the same: the flow hears of it, and of why its files are missing.
			Object.assign(json, { images: [], videos: [], audio: [], files: [] });
			json.files_error = clipText((error as Error).message);
		}
	}
	if (job.startedBy) json.started_by = job.startedBy;
	json.server = kind;
	return binary ? { json, binary } : { json };
}
