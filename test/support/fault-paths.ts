/**
 * The paths of the replaying fault injector (issue 34), found from the nodes' own descriptions:
 * every operation of every node, Host Media in each wait mode, Host Cloud on each flavour, as a
 * node and as a tool, and on the v2 jobs API (`v2Paths`: what v2 serves, and what it refuses by name); the resume webhook (the waiting media execution), the Host Task Trigger, the
 * Host Cloud Trigger on each flavour (fault-cloud-trigger.ts) and the credential tests; plus a refused-input variant (Put Files in Field `__proto__`) per media submit
 * and a saved workflow with a node of type `constructor` per Host Cloud submit,
 * a failing task per image submit, and status reads of an id the service does not know. Each path
 * runs once against the simulator behind the fault proxy, in a bounded time.
 */
import { randomUUID } from 'node:crypto';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { DEFAULT_PUBLISHING_TOKEN } from '../../simulator/registry/area';
import type { Simulator, V2Simulator } from '../../simulator/server';
import type { EngineHarness } from './engine';
import { ActiveTrigger } from './active-trigger';
import { storedFiles, txt2img } from './cloud';
import { hostCloudCredential } from './cloud-credential';
import { CLOUD_REPEAT_LOOK_MS, directSubmit, FLOOD_ROUNDS, runJobFinished, runMemoryFlood } from './fault-cloud-trigger';
import type { FaultProxy } from './fault-proxy';
import { operationsOf, visibleFields } from './node-parameters';
import { REPOHOST_TOKEN } from './registry-node';
import { ITEM, nodeDescription, sweepBase } from './sweep-operations';
import { startWaitingExecution } from './waiting-execution';
import { uiNode, uiTxt2img } from './ui-workflows';
import { hostApiCredential } from './credential-fixtures';

/** `v2`: the v2 jobs API (the simulator's v2 flavour, cloud surface; the Host Cloud V2 API credential). */
export type Flavour = 'cloud' | 'self-hosted' | 'v2';

export interface SweepPath {
	name: string;
	flavour: Flavour;
	kind: 'node' | 'tool' | 'webhook' | 'trigger' | 'credential' | 'editor';
	type: string;
	parameters: IDataObject;
	/** Refused input: nothing may be sent. */
	refused?: boolean;
	/** The media task ends FAILED (its status answer carries `error`). */
	failTask?: boolean;
	/** A job someone else submitted sits in the queue: a tool may neither list nor cancel it. */
	foreignJob?: boolean;
	/** A status read of an id the service does not know: "completed" is a wrong success. */
	unknownId?: boolean;
	/** The trigger is sent notifications with the longest task ids: what it remembers must stay within its size bound. */
	floodMemory?: boolean;
	/** A trigger that reads every `pollMs` (Poll Every): a job missed by a faulted read is found by the next one. */
	pollMs?: number;
	/** How long a trigger path listens by design (its looks), beyond an item's bound: added to its clean run's bound. */
	listensMs?: number;
	/** The registry holds this many nodes of the publisher (a listing of several pages). */
	manyNodes?: number;
	/** An editor's call: the node's list search or load-options method, from the parameter at `from`. */
	editor?: { method: string; listSearch: boolean; filter?: string; from?: string };
	/**
	 * Scope: a job that differs from this run's own only in its execution, workflow or install id
	 * (`tagged`: Cancel Jobs of an Execution must leave it), or sits in the queue with the tag of
	 * this run's lost submit but that one id changed (`lostSubmit`: the lookup must not follow it).
	 */
	scope?: { differs: 'execution' | 'workflow' | 'install'; by: 'tagged' | 'lostSubmit' };
}

/** One simulator (of one flavour) behind its proxy, and the credentials pointing at the proxy. */
export interface World {
	sim: Simulator;
	proxy: FaultProxy;
	harness: EngineHarness;
	cloudCredential: string;
	hostCredential: string;
	secrets: string[];
}

export interface PathOutcome {
	items: INodeExecutionData[];
	error?: unknown;
	/** The words a user reads: error message and description, item errors, a credential test's message. */
	words: string;
	/** Ids of jobs a tool must not touch (foreignJob paths). */
	foreign?: string;
	/** What the trigger remembers, in characters (floodMemory paths and the Host Cloud Trigger). */
	rememberedChars?: number;
	/** The Host Cloud Trigger: the job submitted from outside, when each flow started, and how long its close took. */
	trigger?: { job?: string; startedAt: number[]; closeMs: number; failed: boolean };
}

/** What `prepare` put in place: the parameters, a job the run must not touch, and a hook of the proxy for the run. */
export interface Prepared {
	parameters: IDataObject;
	foreign?: string;
	hook?: FaultProxy['hook'];
}

/** An id no job of the simulator has: the queue entry a lost submit's lookup must not follow. */
export const FOREIGN_LOOKALIKE = '0f0e0d0c-0000-4000-8000-0000000000aa';

/** Short waits everywhere a path waits: Max Wait of about a second, fast polls. */
// Polls further apart than a retry's pause, as for media: each poll is a read of its own.
const CLOUD_WAIT = { maxWaitMinutes: 0.02, pollIntervalSeconds: 0.3, silenceSeconds: 0.3 };
// Polls further apart than a retry's pause: each poll is a read of its own (a read is judged with its retries).
const MEDIA_WAIT = { pollIntervalSeconds: 0.3, maxWaitMinutes: 0.02 };
const TOOL_WAIT = { toolWaitSeconds: 1 };

export function addWorldCredentials(harness: EngineHarness, sim: Simulator, proxy: FaultProxy): Omit<World, 'sim' | 'proxy' | 'harness'> {
	if ((sim.flavour as string) === 'v2')
		return {
			cloudCredential: harness.addCredential('hostCloudV2Api', { baseUrl: proxy.urls.api, apiKey: sim.apiKey }, 'Host Cloud V2 API'),
			hostCredential: '',
			secrets: [sim.apiKey],
		};
	const cloud = hostCloudCredential({ flavour: sim.flavour, baseUrl: proxy.urls.api, apiKey: sim.apiKey, proxy: sim.options.proxyAuth });
	const proxyHeader = sim.options.proxyAuth && 'value' in sim.options.proxyAuth ? [sim.options.proxyAuth.value] : [];
	return {
		cloudCredential: harness.addCredential('hostCloudApi', cloud),
		hostCredential: harness.addCredential(
			'hostApi',
			hostApiCredential({
				accessToken: sim.accessToken,
				registryUrl: proxy.urls.registry,
				publisherId: 'acme',
				publishingToken: DEFAULT_PUBLISHING_TOKEN,
				repohostToken: REPOHOST_TOKEN,
			}),
		),
		secrets: [sim.apiKey, sim.accessToken, DEFAULT_PUBLISHING_TOKEN, REPOHOST_TOKEN, ...proxyHeader],
	};
}

/** Every path of the package (see the file comment). */
export function enumeratePaths(harness: EngineHarness): SweepPath[] {
	const paths: SweepPath[] = [];
	for (const flavour of ['cloud', 'self-hosted'] as const) {
		for (const [resource, operation] of operationsOf(nodeDescription(harness, 'hostCloud'))) {
			const base = { ...sweepBase(harness, 'hostCloud', resource, operation), waitOptions: CLOUD_WAIT } as IDataObject;
			const name = `hostCloud ${resource} ${operation} [${flavour}]`;
			paths.push({ name: `${name} node`, flavour, kind: 'node', type: 'hostCloud', parameters: base });
			paths.push({
				name: `${name} tool`,
				flavour,
				kind: 'tool',
				type: 'hostCloud',
				parameters: { ...base, ...TOOL_WAIT },
				foreignJob: resource === 'queue',
			});
			if (operation === 'execute')
				paths.push({
					name: `${name} node, URLs only`,
					flavour,
					kind: 'node',
					type: 'hostCloud',
					parameters: { ...base, downloadFiles: false },
				});
			// A saved workflow with a node whose type is a name every object carries: refused, nothing submitted.
			if (operation === 'submit' || operation === 'execute')
				paths.push({
					name: `${name} node, a saved workflow with a node of type constructor`,
					flavour,
					kind: 'node',
					type: 'hostCloud',
					parameters: { ...base, workflow: JSON.stringify(withNodeOfType('constructor')) },
					refused: true,
				});
			// The Server operations' other choice (the description's default is one of two).
			const otherChoice: Record<string, IDataObject> = {
				getHistory: { scope: 'promptIds', promptIds: 'set by prepare' },
				deleteHistory: { scope: 'all' },
				listModels: { scope: 'allFolders' },
			};
			if (resource === 'server' && otherChoice[operation])
				paths.push({
					name: `${name} node, ${JSON.stringify(otherChoice[operation]!.scope)}`,
					flavour,
					kind: 'node',
					type: 'hostCloud',
					parameters: { ...base, ...otherChoice[operation] },
				});
			if (operation === 'getStatus' || operation === 'waitForCompletion')
				paths.push({
					name: `${name} node, id __proto__`,
					flavour,
					kind: 'node',
					type: 'hostCloud',
					parameters: { ...base, promptId: '__proto__' },
					unknownId: true,
				});
		}
	}
	for (const type of ['hostMedia', 'hostRegistry']) {
		const description = nodeDescription(harness, type);
		for (const [resource, operation] of operationsOf(description)) {
			const base = sweepBase(harness, type, resource, operation) as IDataObject;
			const name = `${type} ${resource} ${operation}`;
			const submits = visibleFields(description, { resource, operation }).some((field) => field.property.name === 'waitMode');
			if (!submits) {
				// Music keeps its own silence bound (Idle Timeout): the sweep's request limit, as for every request.
				const music = resource === 'music' ? { idleTimeoutSeconds: 0.4 } : {};
				const parameters = type === 'hostMedia' ? { ...base, waitForCompletion: true, waitOptions: { ...MEDIA_WAIT, ...music } } : base;
				paths.push({ name: `${name} node`, flavour: 'cloud', kind: 'node', type, parameters });
				paths.push({ name: `${name} tool`, flavour: 'cloud', kind: 'tool', type, parameters: { ...base, ...TOOL_WAIT } });
				continue;
			}
			for (const waitMode of ['poll', 'webhook', 'none']) {
				const parameters = { ...base, waitMode, ...(waitMode === 'poll' ? { waitOptions: MEDIA_WAIT } : {}) };
				const kind = waitMode === 'webhook' ? 'webhook' : 'node';
				paths.push({ name: `${name} ${waitMode} ${kind}`, flavour: 'cloud', kind, type, parameters });
				if (waitMode !== 'none') {
					// Put Files in Field is checked before the paid task is submitted, in every wait mode.
					const refused = { ...parameters, binaryPropertyName: '__proto__' };
					paths.push({
						name: `${name} ${waitMode} ${kind}, Put Files in Field __proto__`,
						flavour: 'cloud',
						kind,
						type,
						parameters: refused,
						refused: true,
					});
					if (resource === 'image' || resource === 'video')
						paths.push({ name: `${name} ${waitMode} ${kind}, task fails`, flavour: 'cloud', kind, type, parameters, failTask: true });
				}
			}
			paths.push({
				name: `${name} poll tool`,
				flavour: 'cloud',
				kind: 'tool',
				type,
				parameters: { ...base, waitMode: 'poll', ...TOOL_WAIT },
			});
		}
	}
	paths.push({
		name: 'hostTaskTrigger notification',
		flavour: 'cloud',
		kind: 'trigger',
		type: 'hostTaskTrigger',
		parameters: { events: 'all' },
	});
	paths.push({
		name: 'hostTaskTrigger notifications with the longest task ids',
		flavour: 'cloud',
		kind: 'trigger',
		type: 'hostTaskTrigger',
		parameters: { events: 'all' },
		floodMemory: true,
	});
	for (const flavour of ['cloud', 'self-hosted'] as const) {
		// Poll Every at its minimum (self-hosted only; the cloud listens on its socket).
		const pollSeconds = 2;
		const pollMs = pollSeconds * 1000;
		paths.push({
			name: `hostCloudTrigger job finished [${flavour}]`,
			flavour,
			kind: 'trigger',
			type: 'hostCloudTrigger',
			// Self-hosted: the job's look comes a Poll Every after it, the look for a repeat one more.
			...(flavour === 'self-hosted'
				? { parameters: { downloadFiles: true, pollSeconds }, pollMs, listensMs: 2 * pollMs }
				: { parameters: { downloadFiles: true }, listensMs: CLOUD_REPEAT_LOOK_MS }),
		});
	}
	// Only a self-hosted server takes a client's own prompt_id: the cloud's are its own 36-character ids.
	paths.push({
		name: 'hostCloudTrigger jobs with the longest prompt_ids [self-hosted]',
		flavour: 'self-hosted',
		kind: 'trigger',
		type: 'hostCloudTrigger',
		parameters: { downloadFiles: false, pollSeconds: 2 },
		floodMemory: true,
		// A look per round, each a Poll Every after the last, with a second for the round's 100 submits and read.
		pollMs: 2_000,
		listensMs: FLOOD_ROUNDS * 3_000,
	});
	paths.push(...scopePaths(harness), ...listingPaths(harness), ...editorPaths(harness), ...v2Paths(harness));
	for (const type of ['hostCloudApi', 'hostApi'])
		for (const flavour of type === 'hostCloudApi' ? (['cloud', 'self-hosted'] as const) : (['cloud'] as const))
			paths.push({ name: `credential test ${type} [${flavour}]`, flavour, kind: 'credential', type, parameters: {} });
	paths.push({ name: 'credential test hostCloudV2Api [v2]', flavour: 'v2', kind: 'credential', type: 'hostCloudV2Api', parameters: {} });
	return paths;
}

/** Scope (issue 43): Cancel Jobs of an Execution, and a lost submit's lookup, beside a job that differs in one id only. */
function scopePaths(harness: EngineHarness): SweepPath[] {
	const paths: SweepPath[] = [];
	for (const flavour of ['cloud', 'self-hosted'] as const)
		for (const differs of ['execution', 'workflow', 'install'] as const) {
			const cancel = sweepBase(harness, 'hostCloud', 'queue', 'cancelExecutionJobs') as IDataObject;
			if (differs !== 'execution')
				paths.push({
					name: `hostCloud queue cancelExecutionJobs [${flavour}] node, a job of the same execution in another ${differs}`,
					flavour,
					kind: 'node',
					type: 'hostCloud',
					parameters: { ...cancel, executionId: '1', workflowId: 'this-workflow', includeKept: true },
					foreignJob: true,
					scope: { differs, by: 'tagged' },
				});
			// Submit and Execute share the lookup (ownership/lost-submit.ts): Submit's is the short run.
			for (const operation of ['submit']) {
				const base = { ...sweepBase(harness, 'hostCloud', 'workflow', operation), waitOptions: CLOUD_WAIT } as IDataObject;
				paths.push({
					name: `hostCloud workflow ${operation} [${flavour}] node, a lost submit beside a job tagged for another ${differs}`,
					flavour,
					kind: 'node',
					type: 'hostCloud',
					parameters: base,
					scope: { differs, by: 'lostSubmit' },
				});
			}
		}
	return paths;
}

/** Listings of several pages (120 nodes): Get Many page by page, all of them or a Limit. */
function listingPaths(harness: EngineHarness): SweepPath[] {
	const base = sweepBase(harness, 'hostRegistry', 'node', 'getAll') as IDataObject;
	return [
		{ returnAll: true, options: { pageSize: 50 } },
		{ returnAll: false, limit: 70, options: { pageSize: 50 } },
	].map((choice) => ({
		name: `hostRegistry node getAll node, 120 nodes, ${choice.returnAll ? 'Return All' : `Limit ${choice.limit}`}, Page Size 50`,
		flavour: 'cloud' as const,
		kind: 'node' as const,
		type: 'hostRegistry',
		parameters: { ...base, listing: 'paged', ...choice },
		manyNodes: 120,
	}));
}

/** The editor's own calls: the Node picker (a filter that matches, one that matches nothing) and Host Cloud's server lists. */
function editorPaths(harness: EngineHarness): SweepPath[] {
	const registry = sweepBase(harness, 'hostRegistry', 'node', 'update') as IDataObject;
	const paths: SweepPath[] = [undefined, 'node-1', 'no such node'].map((filter) => ({
		name: `editor: hostRegistry Node picker, 120 nodes, ${filter === undefined ? 'no filter' : `filter ${JSON.stringify(filter)}`}`,
		flavour: 'cloud',
		kind: 'editor',
		type: 'hostRegistry',
		parameters: registry,
		manyNodes: 120,
		editor: { method: 'searchNodes', listSearch: true, filter },
	}));
	for (const flavour of ['cloud', 'self-hosted'] as const) {
		const inputs = sweepBase(harness, 'hostCloud', 'workflow', 'execute') as IDataObject;
		paths.push({
			name: `editor: hostCloud Set Inputs values from the server [${flavour}]`,
			flavour,
			kind: 'editor',
			type: 'hostCloud',
			parameters: { ...inputs, inputOverrides: { values: [{ nodeId: '4', inputName: 'ckpt_name', valueSource: 'list' }] } },
			editor: { method: 'getInputValues', listSearch: false, from: 'parameters.inputOverrides.values[0].listedValue' },
		});
		if (flavour === 'self-hosted')
			paths.push({
				name: `editor: hostCloud List Models folders [${flavour}]`,
				flavour,
				kind: 'editor',
				type: 'hostCloud',
				parameters: { ...(sweepBase(harness, 'hostCloud', 'server', 'listModels') as IDataObject) },
				editor: { method: 'getModelFolders', listSearch: false, from: 'parameters.folder' },
			});
	}
	return paths;
}

/** The editor's text-to-image workflow with one more node, of `type`. */
function withNodeOfType(type: string): unknown {
	const workflow = uiTxt2img();
	workflow.nodes.push(uiNode(30, type, { outputs: ['IMAGE'] }));
	return workflow;
}

/**
 * The proxy's hook for a lost submit beside a lookalike: the submit is answered 502 without
 * reaching the server (its answer lost, no job made), and every queue read lists one more running
 * job whose tag is the submit's with one id changed (the one the path names).
 */
function lostSubmitBeside(differs: 'execution' | 'workflow' | 'install'): FaultProxy['hook'] {
	let extraData: IDataObject | undefined;
	const key = { execution: 'execution_id', workflow: 'workflow_id', install: 'instance_id' }[differs];
	return (exchange, body) => {
		if (exchange.method === 'POST' && /\/prompt$/.test(exchange.path)) {
			const sent = JSON.parse(body) as IDataObject;
			const tag = { ...((sent.extra_data as IDataObject | undefined)?.n8n as IDataObject) };
			tag[key] = `another-${String(tag[key] ?? differs)}`;
			extraData = { ...(sent.extra_data as IDataObject), client_id: sent.client_id, n8n: tag };
			return { answer: { status: 502, body: '{"error":"Bad Gateway"}' } };
		}
		if (exchange.method !== 'GET' || !/\/queue$/.test(exchange.path) || !extraData) return undefined;
		const lookalike = extraData;
		return {
			rewrite: (text) => {
				const queue = JSON.parse(text) as { queue_running?: unknown[] };
				queue.queue_running = [...(queue.queue_running ?? []), [99, FOREIGN_LOOKALIKE, {}, lookalike, ['9']]];
				return JSON.stringify(queue);
			},
		};
	};
}

/** Data the path's parameters name, put in the simulator before the run (a job, a publisher, a task); the parameters to run with. */
export async function prepare(world: World, path: SweepPath): Promise<Prepared> {
	const { sim } = world;
	const parameters = { ...path.parameters };
	if (path.flavour === 'v2') return { parameters: await prepareV2(sim, path, parameters) };
	if (path.type === 'hostRegistry') {
		sim.registry.seedPublisher({ id: 'acme', name: 'Acme' });
		sim.registry.seedNodes('acme', 1, { id: 'my-node' });
		if (path.manyNodes) sim.registry.seedNodes('acme', path.manyNodes - 1);
	}
	if (path.scope?.by === 'tagged') {
		// Of execution 1 of workflow this-workflow, but in another workflow or another install.
		const differs = path.scope.differs;
		const tag = {
			execution_id: '1',
			workflow_id: differs === 'workflow' ? 'another-workflow' : 'this-workflow',
			...(differs === 'install' ? { instance_id: 'another-install' } : {}),
			node_name: 'Node',
			item_index: 0,
			operation: 'execute',
			request_id: '0f0e0d0c-0000-4000-8000-0000000000bb',
		};
		const nodeMs = sim.options.nodeMs;
		sim.options.nodeMs = 60_000;
		const foreign = await directSubmit(sim, undefined, { n8n: tag });
		sim.options.nodeMs = nodeMs;
		return { parameters, foreign };
	}
	if (path.scope?.by === 'lostSubmit') return { parameters, foreign: FOREIGN_LOOKALIKE, hook: lostSubmitBeside(path.scope.differs) };
	if (path.type === 'hostMedia' && /getTaskStatus/.test(path.name) && path.name.includes(' image ')) {
		const task = sim.proxy.seedImageTask('image-upscaler', { status: 'COMPLETED' }) as unknown as {
			id?: string;
			taskId?: string;
			task_id?: string;
		};
		parameters.taskId = task.task_id ?? task.taskId ?? task.id ?? parameters.taskId;
	}
	if (path.failTask) sim.proxy.failNextTask('The upscaler could not read the image');
	let foreign: string | undefined;
	if (path.type === 'hostCloud') {
		if (path.foreignJob) {
			// Someone else's job, still running through the tool run.
			const nodeMs = sim.options.nodeMs;
			sim.options.nodeMs = 60_000;
			foreign = await directSubmit(sim);
			sim.options.nodeMs = nodeMs;
		}
		// A job in the history too for the Server resource's history operations, which list or delete ended jobs.
		// Not beside someone else's job: the path names that one (a job of its own would wait 3 s for nothing
		// on a self-hosted server, behind the other job, which runs through the run).
		const namesJob = /promptId|filename/.test(JSON.stringify(Object.keys(parameters))) || / server \w+History /.test(path.name);
		if (namesJob && !path.unknownId && !foreign) {
			const own = await directSubmit(sim);
			const deadline = Date.now() + 3_000;
			while (
				sim.cloud.jobs.get(own) &&
				!/success|completed|error|fail/i.test(String((sim.cloud.jobs.get(own) as { status?: string }).status)) &&
				Date.now() < deadline
			)
				await new Promise((resolve) => setTimeout(resolve, 10));
			if ('promptId' in parameters) parameters.promptId = own;
			if ('promptIds' in parameters) parameters.promptIds = foreign ?? own;
			const file = sim.cloud.jobs.get(own) ? storedFiles(sim, own)[0] : undefined;
			if (file && 'filename' in parameters) parameters.filename = file.filename;
		}
		if (foreign && 'promptIds' in parameters) parameters.promptIds = foreign;
	}
	return { parameters, foreign };
}

let trigger: ActiveTrigger | undefined;

/** Runs the path once; `signal` cancels it (a run over its bound). */
export async function runPath(
	world: World,
	path: SweepPath,
	parameters: IDataObject,
	signal: AbortSignal,
	ending: Array<() => Promise<void>>,
): Promise<PathOutcome> {
	const { harness, cloudCredential, hostCredential } = world;
	const cloudType = path.flavour === 'v2' ? 'hostCloudV2Api' : 'hostCloudApi';
	const credentials: Record<string, string> = path.type === 'hostCloud' ? { [cloudType]: cloudCredential } : { hostApi: hostCredential };
	const wordsOf = (error: unknown, items: INodeExecutionData[]) => {
		const shown = error as { message?: string; description?: string } | undefined;
		const itemWords = items.map((item) => `${String(item.json.error ?? '')} ${String(item.json.errorDetails ?? '')}`);
		return [shown?.message ?? '', shown?.description ?? '', ...itemWords].join(' ');
	};
	if (path.kind === 'editor') return await runEditorCall(world, path, parameters, credentials);
	if (path.kind === 'credential') {
		const data =
			path.type === 'hostCloudV2Api'
				? { baseUrl: world.proxy.urls.api, apiKey: world.sim.apiKey }
				: path.type === 'hostApi'
					? hostApiCredential({ accessToken: world.sim.accessToken, registryUrl: world.proxy.urls.registry, publisherId: 'acme' })
					: hostCloudCredential({
							flavour: world.sim.flavour,
							baseUrl: world.proxy.urls.api,
							apiKey: world.sim.apiKey,
							proxy: world.sim.options.proxyAuth,
						});
		const result = await harness.testCredential(path.type, data);
		const items = [{ json: { ...result, ...(result.status === 'OK' ? {} : { error: result.message }) } }];
		return { items, words: result.message, error: undefined };
	}
	if (path.type === 'hostCloudTrigger') {
		const run = path.floodMemory
			? await runMemoryFlood(harness, world.sim, cloudCredential, parameters)
			: await runJobFinished(harness, world.sim, cloudCredential, parameters, signal);
		const error = run.activationError ?? run.reported[0];
		// A flow's item says in words why its files are missing, or how its job failed.
		const itemWords = run.items.map(({ json }) => {
			const failure = (json.error ?? {}) as IDataObject;
			return [json.files_error, json.outputs_unknown, failure.message, failure.description].filter(Boolean).join(' ');
		});
		const words = [run.activationError, ...run.reported]
			.map((shown) => wordsOf(shown, []))
			.concat(itemWords)
			.join(' ');
		return {
			items: run.items,
			error,
			words,
			rememberedChars: run.rememberedChars,
			trigger: { job: run.job, startedAt: run.startedAt, closeMs: run.closeMs, failed: error !== undefined },
		};
	}
	if (path.kind === 'trigger' && path.floodMemory) {
		// Twenty notifications whose task ids are 256 KiB each: a repeat memory bounded by count alone keeps 5 MiB.
		const flooded = new ActiveTrigger(harness, path.parameters as never);
		const items: INodeExecutionData[] = [];
		for (let index = 0; index < 20; index++) {
			const delivery = await flooded.deliver({ task_id: `${index}-${'x'.repeat(256 * 1024)}`, status: 'COMPLETED', generated: [] });
			items.push(...delivery.passedOn);
		}
		return { items, words: '', error: undefined, rememberedChars: flooded.remembered.join('').length };
	}
	if (path.kind === 'trigger') {
		trigger ??= new ActiveTrigger(harness, path.parameters as never);
		const delivery = await trigger.deliver({ task_id: `t-${Date.now()}`, status: 'COMPLETED', generated: ['https://files.example/a.png'] });
		return { items: delivery.passedOn, words: JSON.stringify(delivery.call.body ?? ''), error: undefined };
	}
	if (path.kind === 'webhook') {
		const world_ = await startWaitingExecution(harness, hostCredential, parameters, { items: [ITEM as never] });
		ending.push(() => world_.receiver.close());
		const waiting = await world_.waiting;
		if (waiting.status !== 'waiting') {
			const items = waiting.output('Node');
			return { items, error: waiting.error('Node'), words: wordsOf(waiting.error('Node'), items) };
		}
		const resumed = await world_.resumed;
		const items = resumed.output('Node');
		return { items, error: resumed.error('Node'), words: wordsOf(resumed.error('Node'), items) };
	}
	const type = path.kind === 'tool' ? `${path.type}Tool` : path.type;
	const input = path.kind === 'tool' ? [{ ...ITEM, json: { toolCallId: 'call_1' } }] : [ITEM];
	const result = await harness
		.runNode({ type, parameters: parameters as never, credentials, continueOnFail: true }, input, { signal })
		.catch((error: unknown) => {
			if ((error as Error).name !== 'WorkflowHasIssuesError') throw error;
			return { error: () => error, items: [] as INodeExecutionData[] };
		});
	const error = result.error('Node');
	return { items: result.items, error, words: wordsOf(error, result.items) };
}

/** An editor's call (a list search or a dropdown's list): its results as items, its error as the outcome's. */
async function runEditorCall(
	world: World,
	path: SweepPath,
	parameters: IDataObject,
	credentials: Record<string, string>,
): Promise<PathOutcome> {
	const { method, listSearch, filter, from } = path.editor!;
	const node = { name: 'Node', type: path.type, parameters: parameters as never, credentials };
	try {
		const results = listSearch
			? (await world.harness.listSearch(node, method, filter)).results
			: await world.harness.loadOptions(node, method, from ?? 'parameters');
		return { items: results.map((result) => ({ json: { ...result } as IDataObject })), words: '' };
	} catch (error) {
		const shown = error as { message?: string; description?: string };
		return { items: [], error, words: `${shown.message ?? ''} ${shown.description ?? ''}` };
	}
}

/** The operations v2 serves (docs/host-cloud.md); every other one is refused by name on v2 before anything is sent. */
export const V2_SERVED: ReadonlyArray<[string, string]> = [
	['workflow', 'execute'],
	['workflow', 'submit'],
	['workflow', 'waitForCompletion'],
	['workflow', 'getStatus'],
	['workflow', 'getJobWorkflow'],
	['queue', 'cancelJobs'],
	['file', 'uploadImage'],
	['file', 'uploadMask'],
	['file', 'getOutputUrl'],
	['file', 'downloadOutput'],
];
/** A job id of the contract's form that the simulator never made. */
export const V2_UNKNOWN_JOB = '00000000-0000-4000-8000-00000000dead';

/**
 * Host Cloud on v2 (issue 45), its operations found from the node's description with
 * `apiGeneration: 'v2'`: each one v2 serves as a node (Execute with links and with files), Execute
 * as a tool, a status read of a job the server never made, a saved (UI-format) workflow refused
 * before anything is sent, and every operation v2 does not serve refused by name, sending nothing.
 */
function v2Paths(harness: EngineHarness): SweepPath[] {
	const paths: SweepPath[] = [];
	const served = (resource: string, operation: string) => V2_SERVED.some(([r, o]) => r === resource && o === operation);
	for (const [resource, operation] of operationsOf(nodeDescription(harness, 'hostCloud'))) {
		const base = { ...sweepBase(harness, 'hostCloud', resource, operation), apiGeneration: 'v2', waitOptions: CLOUD_WAIT } as IDataObject;
		const name = `hostCloud ${resource} ${operation} [v2]`;
		const path = (more: Partial<SweepPath> & { name: string }): SweepPath => ({
			flavour: 'v2',
			kind: 'node',
			type: 'hostCloud',
			parameters: base,
			...more,
		});
		if (!served(resource, operation)) {
			paths.push(path({ name: `${name} node, refused by name`, refused: true }));
			continue;
		}
		if (operation === 'execute') {
			paths.push(path({ name: `${name} node, files`, parameters: { ...base, downloadFiles: true } }));
			paths.push(path({ name: `${name} node, URLs only`, parameters: { ...base, downloadFiles: false } }));
			paths.push(path({ name: `${name} tool`, kind: 'tool', parameters: { ...base, ...TOOL_WAIT } }));
		} else paths.push(path({ name: `${name} node` }));
		if (operation === 'submit' || operation === 'execute')
			paths.push(
				path({
					name: `${name} node, a saved (UI-format) workflow`,
					parameters: { ...base, workflow: JSON.stringify(uiTxt2img()) },
					refused: true,
				}),
			);
		if (operation === 'getStatus' || operation === 'waitForCompletion' || operation === 'getJobWorkflow')
			paths.push(
				path({
					name: `${name} node, a job the server never made`,
					parameters: { ...base, promptId: V2_UNKNOWN_JOB, jobId: V2_UNKNOWN_JOB },
					unknownId: true,
				}),
			);
	}
	return paths;
}

/** v2: a job submitted and ended before the run (its id and first output's asset), for the operations that name one. */
async function prepareV2(sim: Simulator, path: SweepPath, parameters: IDataObject): Promise<IDataObject> {
	const names = ['promptId', 'promptIds', 'jobId', 'assetId'].filter((name) => name in parameters || /getOutputUrl|downloadOutput/.test(path.name));
	if (names.length === 0 || path.unknownId || path.refused) return parameters;
	const answer = await fetch(`${sim.baseUrl}/api/v2/jobs`, {
		method: 'POST',
		headers: { authorization: `Bearer ${sim.apiKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
		body: JSON.stringify({ workflow: txt2img() }),
	});
	const id = ((await answer.json()) as { id: string }).id;
	const jobs = (sim as unknown as V2Simulator).v2.jobs;
	const deadline = Date.now() + 3_000;
	while (jobs.get(id)?.status !== 'succeeded' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
	const asset = jobs.get(id)?.outputs[0]?.asset.id;
	return { ...parameters, promptId: id, promptIds: id, jobId: id, ...(asset ? { assetId: asset } : {}) };
}
