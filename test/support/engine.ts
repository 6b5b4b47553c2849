/**
 * The engine harness: runs workflows with this package's nodes in n8n-core's real WorkflowExecute,
 * in-process, so parameters, expressions, credentials, binary data, continueOnFail, pairedItem,
 * the cancel signal and waiting executions behave as they do in n8n.
 *
 * Nodes and credentials are loaded from the paths package.json registers (mapped back to their
 * TypeScript sources), so a node missing from package.json is missing here too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Container } from '@n8n/di';
import {
	BinaryDataService,
	ExecuteContext,
	ExecutionLifecycleHooks,
	InstanceSettings,
	LoadOptionsContext,
	RoutingNode,
	WebhookContext,
	WorkflowExecute,
} from 'n8n-core';
import {
	createEmptyRunExecutionData,
	type ExecutionError,
	type IBinaryData,
	type ICredentialDataDecryptedObject,
	type ICredentialsDecrypted,
	type ICredentialType,
	type IDataObject,
	type INode,
	type INodeCredentialTestResult,
	type INodeExecutionData,
	type INodeListSearchResult,
	type INodePropertyOptions,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IRunExecutionData,
	type IVersionedNodeType,
	type IWorkflowExecuteAdditionalData,
	type IConnections,
	NodeHelpers,
	Workflow,
} from 'n8n-workflow';

import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';

import { HarnessCredentialsHelper } from './credentials';
import { ItemsNode, ITEMS_NODE_TYPE, type HarnessItem } from './items-node';

// n8n-core's SSH client manager, made by every node run, starts a 60 s interval that only its
// shutdown clears: left running, it kept each test file's module registry (n8n and all, about 16 MiB)
// alive in the Jest worker, which grew until it was replaced. Outside Jest (bench scripts) the
// process ends anyway.
if (typeof afterAll === 'function') afterAll(() => Container.get(SSHClientsManager).onShutdown());

const ROOT = join(__dirname, '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-host';

/** The id of the n8n install the harness runs as (n8n-core's, the same for every run): what a tag of this install names. */
export const harnessInstanceId = (): string => Container.get(InstanceSettings).instanceId;

type AnyNodeType = INodeType | IVersionedNodeType;

/** Loads the classes package.json registers under n8n.nodes / n8n.credentials (from sources). */
function loadRegistered<T>(paths: string[]): T[] {
	return paths.map((distPath) => {
		const source = join(ROOT, distPath.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		const exports = require(source) as Record<string, new () => T>;
		const Class = Object.values(exports).find((value) => typeof value === 'function');
		if (!Class) throw new Error(`${distPath} exports no class`);
		return new Class();
	});
}

export function loadPackage(): { nodes: Map<string, AnyNodeType>; credentials: Map<string, ICredentialType> } {
	const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const nodes = new Map<string, AnyNodeType>();
	for (const node of loadRegistered<AnyNodeType>(pkg.n8n.nodes)) {
		nodes.set(`${PACKAGE_NAME}.${node.description.name}`, node);
	}
	const credentials = new Map<string, ICredentialType>();
	for (const credential of loadRegistered<ICredentialType>(pkg.n8n.credentials)) credentials.set(credential.name, credential);
	return { nodes, credentials };
}

class HarnessNodeTypes implements INodeTypes {
	constructor(readonly types: Map<string, AnyNodeType>) {}

	getByName(nodeType: string): AnyNodeType {
		const type = this.types.get(nodeType);
		if (!type) throw new Error(`Unknown node type ${nodeType}`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

export interface WorkflowNodeSpec {
	name: string;
	/** Short names (`hostCloud`) get the package prefix; the harness input node is `harness.items`. */
	type: string;
	parameters?: INode['parameters'];
	credentials?: Record<string, string>;
	continueOnFail?: boolean;
	/** n8n's "Retry On Fail" settings (n8n keeps 2 to 5 tries, 0 to 5000 ms apart). */
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	/** n8n's "On Error" setting; `continueErrorOutput` adds an error output (index 1). */
	onError?: INode['onError'];
	typeVersion?: number;
}

export interface WorkflowSpec {
	nodes: WorkflowNodeSpec[];
	/** `[from, to]` pairs on the main connection, output 0 → input 0. */
	connect?: Array<[string, string]>;
	/** n8n connections object, for imported workflow JSON (used instead of `connect`). */
	connections?: IConnections;
	/** Where execution starts; defaults to the first node. */
	startNode?: string;
}

export interface RunResult {
	run: IRun;
	status: IRun['status'];
	/** Items a node returned on output 0 in its last run (empty when it did not run). */
	output(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** The error of a node's last run, or of the whole execution. */
	error(nodeName?: string): ExecutionError | undefined;
	waitTill?: Date;
	executionId: string;
}

export interface WebhookRequest {
	method?: string;
	headers?: Record<string, string>;
	query?: Record<string, string>;
	body?: unknown;
}

export interface WebhookCall {
	/** What n8n would answer the caller: the node's own response, or n8n's for `onReceived`. */
	status: number;
	body: unknown;
	/** The node's answer: workflowData (items that start or resume the workflow), webhookResponse... */
	result: Awaited<ReturnType<NonNullable<INodeType['webhook']>>>;
}

/** The part of an Express response a webhook method uses, recording what it sent. */
function fakeResponse() {
	const sent: { status: number; body: unknown; ended: boolean } = { status: 200, body: undefined, ended: false };
	const res = {
		sent,
		status(code: number) {
			sent.status = code;
			return res;
		},
		json(body: unknown) {
			sent.body = body;
			sent.ended = true;
			return res;
		},
		send(body: unknown) {
			sent.body = body;
			sent.ended = true;
			return res;
		},
		end(body?: unknown) {
			if (body !== undefined) sent.body = body;
			sent.ended = true;
			return res;
		},
		setHeader: () => res,
		header: () => res,
		set: () => res,
	};
	return res;
}

export interface RunOptions {
	/** Aborting it cancels the execution, as the Stop button does in n8n. */
	signal?: AbortSignal;
	executionId?: string;
	/** Base of `$execution.resumeUrl`; the execution id is appended. */
	webhookWaitingBaseUrl?: string;
	/** Continue an earlier (waiting) execution from its run data. */
	runExecutionData?: IRunExecutionData;
	/** The workflow's id (`wf-harness` unless given): a second id plays another workflow of the same n8n. */
	workflowId?: string;
}

let binaryDataReady: Promise<BinaryDataService> | undefined;

/** n8n-core's binary data service, set up once per test process (mode from N8N_DEFAULT_BINARY_DATA_MODE). */
export function binaryDataService(): Promise<BinaryDataService> {
	binaryDataReady ??= (async () => {
		const service = Container.get(BinaryDataService);
		await service.init();
		return service;
	})();
	return binaryDataReady;
}

/** The bytes of an item's binary property, wherever n8n stored them (memory or filesystem). */
export async function readBinary(binary: IBinaryData): Promise<Buffer> {
	const service = await binaryDataService();
	return await service.getAsBuffer(binary);
}

let executionCounter = 0;

export class EngineHarness {
	readonly nodeTypes: HarnessNodeTypes;
	readonly credentialTypes: Map<string, ICredentialType>;
	readonly credentials: HarnessCredentialsHelper;
	private credentialCounter = 0;

	constructor() {
		const { nodes, credentials } = loadPackage();
		nodes.set(ITEMS_NODE_TYPE, new ItemsNode());
		this.nodeTypes = new HarnessNodeTypes(nodes);
		this.credentialTypes = credentials;
		this.credentials = new HarnessCredentialsHelper(credentials);
	}

	/** Adds a node type that is not part of the package (benchmark baselines), under `name`. */
	registerNodeType(name: string, nodeType: AnyNodeType): void {
		this.nodeTypes.types.set(name, nodeType);
	}

	/** Stores a credential; returns the reference nodes use (`credentials: { hostCloudApi: id }`). */
	addCredential(type: string, data: ICredentialDataDecryptedObject, name = `${type} ${++this.credentialCounter}`): string {
		if (!this.credentialTypes.has(type)) throw new Error(`Credential type ${type} is not registered in package.json`);
		const id = `cred-${this.credentialCounter}-${type}`;
		this.credentials.add({ id, name, type, data });
		return id;
	}

	buildWorkflow(spec: WorkflowSpec, workflowId = 'wf-harness'): Workflow {
		const nodes: INode[] = spec.nodes.map((node, index) => {
			const type = node.type.includes('.') ? node.type : `${PACKAGE_NAME}.${node.type}`;
			const versions = this.nodeTypes.getByNameAndVersion(type).description.version;
			const credentials: INode['credentials'] = {};
			for (const [credentialType, id] of Object.entries(node.credentials ?? {})) {
				credentials[credentialType] = { id, name: this.credentials.store.get(id)?.name ?? id };
			}
			return {
				id: `node-${index}`,
				name: node.name,
				type,
				typeVersion: node.typeVersion ?? (Array.isArray(versions) ? versions[versions.length - 1] : versions),
				position: [index * 200, 0],
				parameters: node.parameters ?? {},
				credentials,
				continueOnFail: node.continueOnFail,
				retryOnFail: node.retryOnFail,
				maxTries: node.maxTries,
				waitBetweenTries: node.waitBetweenTries,
				onError: node.onError ?? (node.continueOnFail ? 'continueRegularOutput' : undefined),
			};
		});
		const connections: IConnections = spec.connections ?? {};
		for (const [from, to] of spec.connect ?? []) {
			connections[from] ??= { main: [[]] };
			connections[from].main[0]!.push({ node: to, type: 'main', index: 0 });
		}
		return new Workflow({
			id: workflowId,
			name: 'Harness',
			nodes,
			connections,
			active: false,
			nodeTypes: this.nodeTypes,
			settings: { executionOrder: 'v1' },
		});
	}

	/**
	 * A dropdown's list as the editor asks n8n for it: the node's load-options method, called with
	 * the node's current parameters, from the parameter at `path` (for example
	 * `parameters.inputOverrides.values[0].listedValue`, whose `&` siblings the method reads).
	 */
	async loadOptions(node: WorkflowNodeSpec, method: string, path: string): Promise<INodePropertyOptions[]> {
		const workflow = this.buildWorkflow({ nodes: [node] });
		const built = workflow.getNode(node.name)!;
		const additionalData = this.additionalData('load-options') as IWorkflowExecuteAdditionalData & { currentNodeParameters?: unknown };
		additionalData.currentNodeParameters = built.parameters;
		const context = new LoadOptionsContext(workflow, built, additionalData, path);
		const type = this.nodeTypes.getByNameAndVersion(built.type) as INodeType;
		const load = type.methods?.loadOptions?.[method];
		if (!load) throw new Error(`${built.type} has no load-options method ${method}`);
		return load.call(context);
	}

	/** A resource locator's list as the editor asks n8n for it: the node's list-search method, with the typed filter. */
	async listSearch(node: WorkflowNodeSpec, method: string, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
		const workflow = this.buildWorkflow({ nodes: [node] });
		const built = workflow.getNode(node.name)!;
		const additionalData = this.additionalData('list-search') as IWorkflowExecuteAdditionalData & { currentNodeParameters?: unknown };
		additionalData.currentNodeParameters = built.parameters;
		const context = new LoadOptionsContext(workflow, built, additionalData, 'parameters');
		const type = this.nodeTypes.getByNameAndVersion(built.type) as INodeType;
		const search = type.methods?.listSearch?.[method];
		if (!search) throw new Error(`${built.type} has no list-search method ${method}`);
		return await search.call(context, filter, paginationToken);
	}

	additionalData(executionId: string, options: RunOptions = {}): IWorkflowExecuteAdditionalData {
		const hooks = new ExecutionLifecycleHooks('manual', executionId, {
			id: 'wf-harness',
			name: 'Harness',
			nodes: [],
			connections: {},
			active: false,
			activeVersionId: null,
			isArchived: false,
			createdAt: new Date(),
			updatedAt: new Date(),
		} as never);
		const notAvailable = (what: string) => () => {
			throw new Error(`${what} is not available in the engine harness`);
		};
		return {
			credentialsHelper: this.credentials,
			hooks,
			executionId,
			currentNodeExecutionIndex: 0,
			restApiUrl: 'http://127.0.0.1:5678/rest',
			instanceBaseUrl: 'http://127.0.0.1:5678/',
			formBaseUrl: 'http://127.0.0.1:5678/form',
			formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
			formTestBaseUrl: 'http://127.0.0.1:5678/form-test',
			webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
			webhookWaitingBaseUrl: options.webhookWaitingBaseUrl ?? 'http://127.0.0.1:5678/webhook-waiting',
			webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
			mcpBaseUrl: 'http://127.0.0.1:5678/mcp',
			mcpTestBaseUrl: 'http://127.0.0.1:5678/mcp-test',
			variables: {},
			userId: 'harness-user',
			logAiEvent: () => undefined,
			getRunExecutionData: async () => undefined,
			getRuntimeCredential: async () => undefined,
			executeWorkflow: notAvailable('Execute Workflow'),
			startRunnerTask: notAvailable('The task runner'),
			setExecutionStatus: () => undefined,
			sendDataToUI: () => undefined,
		} as unknown as IWorkflowExecuteAdditionalData;
	}

	/** Runs a workflow to its end (or until it waits, fails or is cancelled). */
	async run(spec: WorkflowSpec, options: RunOptions = {}): Promise<RunResult> {
		await binaryDataService();
		const workflow = this.buildWorkflow(spec, options.workflowId);
		const executionId = options.executionId ?? `harness-${process.pid}-${++executionCounter}`;
		const additionalData = this.additionalData(executionId, options);
		let run: IRun;
		if (options.runExecutionData) {
			const execute = new WorkflowExecute(additionalData, 'manual', options.runExecutionData);
			run = await cancellable(execute.processRunExecutionData(workflow), options.signal);
		} else {
			const startName = spec.startNode ?? spec.nodes[0]!.name;
			const execute = new WorkflowExecute(additionalData, 'manual');
			run = await cancellable(execute.run({ workflow, startNode: workflow.getNode(startName) ?? undefined }), options.signal);
		}
		return toResult(run, executionId);
	}

	/**
	 * Runs `nodeSpec` on `items` fed by the harness input node, the common shape of a node test.
	 * The node under test is named "Node".
	 */
	async runNode(
		nodeSpec: Omit<WorkflowNodeSpec, 'name'> & { name?: string },
		items: HarnessItem[] = [{ json: {} }],
		options: RunOptions = {},
	): Promise<RunResult & { items: INodeExecutionData[] }> {
		const name = nodeSpec.name ?? 'Node';
		const result = await this.run(
			{
				nodes: [
					{ name: 'Input', type: ITEMS_NODE_TYPE, parameters: { items: JSON.stringify(items) } },
					{ ...nodeSpec, name },
				],
				connect: [['Input', name]],
			},
			options,
		);
		return { ...result, items: result.output(name) };
	}

	/**
	 * Delivers an HTTP request to a node's webhook method, as n8n's webhook server does: the node
	 * reads it through n8n-core's WebhookContext. Pass the same Workflow object to keep the node's
	 * static data between calls (an active trigger's memory).
	 */
	async callWebhook(
		workflow: Workflow,
		nodeName: string,
		request: WebhookRequest,
		options: { runExecutionData?: IRunExecutionData; executionId?: string; webhookName?: string } = {},
	): Promise<WebhookCall> {
		const node = workflow.getNode(nodeName);
		if (!node) throw new Error(`No node named ${nodeName}`);
		const nodeType = this.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		if (!nodeType.webhook) throw new Error(`${node.type} has no webhook method`);
		const additionalData = this.additionalData(options.executionId ?? 'webhook', {});
		const res = fakeResponse();
		additionalData.httpRequest = {
			method: request.method ?? 'POST',
			headers: Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
			query: request.query ?? {},
			params: {},
			body: request.body ?? {},
		} as never;
		additionalData.httpResponse = res as never;
		const webhookData = {
			httpMethod: (request.method ?? 'POST') as 'POST',
			node: node.name,
			path: 'harness',
			webhookDescription: { name: options.webhookName ?? 'default', httpMethod: 'POST', path: 'harness' },
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
		} as never;
		const context = new WebhookContext(
			workflow,
			node,
			additionalData,
			options.runExecutionData ? 'webhook' : 'trigger',
			webhookData,
			[],
			options.runExecutionData ?? null,
		);
		const result = await nodeType.webhook.call(context);
		if (result.noWebhookResponse) return { status: res.sent.status, body: res.sent.body, result };
		return { status: 200, body: result.webhookResponse ?? { message: 'Workflow was started' }, result };
	}

	/**
	 * Resumes a waiting execution with the items a webhook call answered, the way n8n's waiting
	 * webhooks do: the waiting node's input becomes those items and the engine carries on (the
	 * node itself is then passed through, as n8n disables it on resume).
	 */
	async resume(
		spec: WorkflowSpec,
		waiting: RunResult,
		items: INodeExecutionData[][] | undefined,
		options: RunOptions = {},
	): Promise<RunResult> {
		const runExecutionData = waiting.run.data;
		const stack = runExecutionData.executionData?.nodeExecutionStack;
		if (!stack?.length) throw new Error('The execution has nothing waiting to resume');
		if (items) stack[0]!.data.main = items;
		return await this.run(spec, { ...options, executionId: waiting.executionId, runExecutionData });
	}

	/**
	 * Tests a credential the way n8n's credential test does: the type's `test` request is run
	 * through n8n-core's RoutingNode with the credential applied; a non-2xx answer fails with the
	 * message of the matching `responseCode` rule, or the HTTP status text.
	 */
	async testCredential(type: string, data: ICredentialDataDecryptedObject): Promise<INodeCredentialTestResult> {
		const credentialType = this.credentialTypes.get(type);
		if (!credentialType?.test) return { status: 'Error', message: 'No testing function found for this credential.' };
		const id = this.addCredential(type, data);
		const testNodeType: INodeType = {
			description: {
				displayName: 'Credential Test',
				name: 'harnessCredentialTest',
				group: ['transform'],
				version: 1,
				description: '',
				defaults: {},
				inputs: ['main'],
				outputs: ['main'],
				credentials: [{ name: type, required: true }],
				properties: [{ displayName: 'Temp', name: 'temp', type: 'string', default: '', routing: { request: credentialType.test.request } }],
			},
		};
		const node: INode = {
			id: 'temp',
			name: 'Temp-Node',
			type: 'harness.credentialTest',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
			credentials: { [type]: { id, name: type } },
		};
		const nodeTypes = new HarnessNodeTypes(new Map([[node.type, testNodeType]]));
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		const additionalData = this.additionalData('credential-test');
		const context = new ExecuteContext(
			workflow,
			node,
			additionalData,
			'internal',
			createEmptyRunExecutionData(),
			0,
			[],
			{ main: [[{ json: {} }]] },
			{ node, data: {}, source: null },
			[],
		);
		const decrypted: ICredentialsDecrypted = {
			id,
			name: type,
			type,
			data: await this.credentials.getDecrypted(additionalData, { id, name: type }, type),
		};
		let response: INodeExecutionData[][] | null | undefined;
		try {
			response = await new RoutingNode(context, testNodeType, decrypted).runNode();
		} catch (error) {
			const cause = (error as { cause?: { response?: { status: number; statusText?: string }; code?: string } }).cause;
			if (cause?.response) {
				const rule = credentialType.test.rules?.find((r) => r.type === 'responseCode' && r.properties.value === cause.response!.status);
				if (rule && rule.type === 'responseCode') return { status: 'Error', message: rule.properties.message };
				return { status: 'Error', message: cause.response.statusText || `Received HTTP status code: ${cause.response.status}` };
			}
			if (cause?.code) return { status: 'Error', message: cause.code };
			return { status: 'Error', message: (error as Error).message };
		}
		// As n8n's CredentialsTester: a 2xx fails on the first answer rule whose path holds its value.
		for (const rule of credentialType.test.rules ?? []) {
			if (rule.type !== 'responseSuccessBody') continue;
			if (valueAtPath(response?.[0]?.[0]?.json, rule.properties.key) === rule.properties.value) {
				return { status: 'Error', message: rule.properties.message };
			}
		}
		return { status: 'OK', message: 'Connection successful!' };
	}
}

function cancellable(execution: ReturnType<WorkflowExecute['run']>, signal?: AbortSignal): Promise<IRun> {
	if (signal) {
		if (signal.aborted) execution.cancel();
		else signal.addEventListener('abort', () => execution.cancel(), { once: true });
	}
	return execution;
}

function toResult(run: IRun, executionId: string): RunResult {
	const runData = run.data.resultData.runData;
	return {
		run,
		status: run.status,
		executionId,
		waitTill: run.waitTill ?? undefined,
		output(nodeName, outputIndex = 0) {
			const runs = runData[nodeName];
			const last = runs?.[runs.length - 1];
			return last?.data?.main?.[outputIndex] ?? [];
		},
		error(nodeName) {
			if (!nodeName) return run.data.resultData.error;
			const runs = runData[nodeName];
			return runs?.[runs.length - 1]?.error;
		},
	};
}

/** The value at a dotted path, read as lodash's `get` (which n8n's credential tester uses) reads one. */
function valueAtPath(value: unknown, path: string): unknown {
	return path
		.split('.')
		.reduce<unknown>((at, key) => (at === null || at === undefined ? undefined : (at as Record<string, unknown>)[key]), value);
}
