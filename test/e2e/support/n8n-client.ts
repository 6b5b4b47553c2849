/**
 * n8n's own REST API (the one its editor uses), as the e2e suite and the demo need it: owner
 * set-up and sign-in, credentials and their connection test, workflows, manual runs and their
 * run data, activation, stopping executions. Everything goes through the same HTTP endpoints a
 * user's browser calls.
 */
import { decodeFlatted } from './flatted';

export interface OwnerAccount {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export const DEMO_OWNER: OwnerAccount = {
	email: 'demo@n8n-nodes-host.example',
	password: 'Host-demo-2026',
	firstName: 'Demo',
	lastName: 'Owner',
};

export interface CredentialRef {
	id: string;
	name: string;
	type: string;
}

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/** A workflow as n8n's export/import format has it (the shape of examples/*.json). */
export interface WorkflowJson {
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	pinData?: Record<string, unknown>;
	[key: string]: unknown;
}

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id?: string; name: string }>;
	webhookId?: string;
	[key: string]: unknown;
}

/** The parts of a node type description the suite reads. */
export interface NodeTypeDescription {
	name: string;
	displayName: string;
	version: number | number[];
	webhooks?: Array<{ name: string; httpMethod: string; path: string; [key: string]: unknown }>;
	properties: Array<{
		name: string;
		displayName: string;
		type: string;
		default?: unknown;
		displayOptions?: { show?: Record<string, unknown[]>; hide?: Record<string, unknown[]> };
		options?: Array<{ name: string; value?: unknown }>;
	}>;
	[key: string]: unknown;
}

export interface StoredWorkflow extends WorkflowJson {
	id: string;
	versionId: string;
	active: boolean;
}

/** One item of a node's output, as n8n stores it. */
export interface RunItem {
	json: Record<string, unknown>;
	binary?: Record<string, { mimeType?: string; fileName?: string; fileSize?: string; id?: string; [key: string]: unknown }>;
	pairedItem?: unknown;
}

export interface NodeRun {
	startTime: number;
	executionTime: number;
	executionStatus?: string;
	/** main[outputIndex] = items */
	data?: { main?: Array<RunItem[] | null> };
	error?: { message?: string; description?: string; [key: string]: unknown };
}

export interface ExecutionResult {
	id: string;
	/** new, running, waiting, success, error, canceled, crashed, unknown */
	status: string;
	finished: boolean;
	mode: string;
	waitTill?: string | null;
	/** When n8n created, started and stopped it (ISO dates, milliseconds included). */
	createdAt?: string;
	startedAt?: string | null;
	stoppedAt?: string | null;
	/** Run data per node name, in the order n8n ran them. */
	runData: Record<string, NodeRun[]>;
	/** The execution's error (the failing node's message), if any. */
	error?: { message?: string; description?: string; node?: { name?: string }; [key: string]: unknown };
	lastNodeExecuted?: string;
}

export class N8nApiError extends Error {
	constructor(
		readonly method: string,
		readonly path: string,
		readonly status: number,
		readonly body: string,
	) {
		super(`n8n ${method} ${path} answered ${status}: ${body.slice(0, 500)}`);
	}
}

const TERMINAL_STATUSES = new Set(['success', 'error', 'canceled', 'crashed']);

export class N8nClient {
	private cookie = '';
	/** Every execution this client has read, as last read: the output items the cases saw (for the secrets audit). */
	readonly seenExecutions = new Map<string, ExecutionResult>();

	constructor(readonly url: string) {}

	async request<T = unknown>(method: string, path: string, body?: unknown, options: { timeoutMs?: number } = {}): Promise<T> {
		const response = await fetch(`${this.url}${path}`, {
			method,
			headers: {
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
			signal: AbortSignal.timeout(options.timeoutMs ?? 60000),
		});
		const text = await response.text();
		const setCookie = response.headers.getSetCookie?.() ?? [];
		for (const line of setCookie) {
			const auth = /^n8n-auth=([^;]*)/.exec(line);
			if (auth) this.cookie = `n8n-auth=${auth[1]}`;
		}
		if (!response.ok) throw new N8nApiError(method, path, response.status, text);
		if (text === '') return undefined as T;
		const parsed = JSON.parse(text) as { data?: T };
		return (parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed) as T;
	}

	/** This n8n install's id (its frontend settings): the id the package's job tags carry as `instance_id`. */
	async instanceId(): Promise<string> {
		const settings = await this.request<{ instanceId?: unknown }>('GET', '/rest/settings');
		if (typeof settings?.instanceId !== 'string') throw new Error('n8n answered its settings without an instanceId');
		return settings.instanceId;
	}

	/** Creates the instance owner (first start only) and keeps the session cookie. */
	async setupOwner(owner: OwnerAccount = DEMO_OWNER): Promise<void> {
		await this.request('POST', '/rest/owner/setup', owner);
	}

	async login(owner: Pick<OwnerAccount, 'email' | 'password'> = DEMO_OWNER): Promise<void> {
		await this.request('POST', '/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
	}

	// ---- node types -------------------------------------------------------------------------

	/** Every node type this n8n has loaded, as the editor receives them (`/types/nodes.json`). */
	async nodeTypes(): Promise<NodeTypeDescription[]> {
		return await this.typesFile<NodeTypeDescription>('nodes');
	}

	/** Names of every node type this n8n knows (`n8n-nodes-host.hostCloud`, ...). */
	async nodeTypeNames(): Promise<Set<string>> {
		return new Set((await this.nodeTypes()).map((type) => type.name));
	}

	async credentialTypeNames(): Promise<Set<string>> {
		return new Set((await this.typesFile<{ name: string }>('credentials')).map((type) => type.name));
	}

	private async typesFile<T>(kind: 'nodes' | 'credentials'): Promise<T[]> {
		const path = `/types/${kind}.json`;
		const response = await fetch(`${this.url}${path}`, { headers: { cookie: this.cookie }, signal: AbortSignal.timeout(60000) });
		if (!response.ok) throw new N8nApiError('GET', path, response.status, await response.text());
		return (await response.json()) as T[];
	}

	// ---- credentials ------------------------------------------------------------------------

	async createCredential(name: string, type: string, data: Record<string, unknown>): Promise<CredentialRef> {
		const created = await this.request<{ id: string; name: string; type: string }>('POST', '/rest/credentials', { name, type, data });
		return { id: created.id, name: created.name, type: created.type };
	}

	async updateCredential(credential: CredentialRef, data: Record<string, unknown>): Promise<void> {
		await this.request('PATCH', `/rest/credentials/${credential.id}`, { name: credential.name, type: credential.type, data });
	}

	async deleteCredential(credential: CredentialRef): Promise<void> {
		await this.request('DELETE', `/rest/credentials/${credential.id}`);
	}

	/**
	 * The editor's "Test" button: tests the stored credential, with `data` overriding stored
	 * fields (as when a user edits a field before testing; omitted fields keep their stored value).
	 */
	async testCredential(credential: CredentialRef, data: Record<string, unknown> = {}): Promise<CredentialTestResult> {
		const stored = await this.request<{ data?: Record<string, unknown> }>('GET', `/rest/credentials/${credential.id}?includeData=true`);
		return await this.request<CredentialTestResult>('POST', '/rest/credentials/test', {
			credentials: { id: credential.id, name: credential.name, type: credential.type, data: { ...(stored.data ?? {}), ...data } },
		});
	}

	/**
	 * A dropdown's list as the editor asks for it when it opens (POST
	 * /rest/dynamic-node-parameters/options): the node type's load-options `method`, with the node's
	 * current parameters and credential, for the parameter at `path`.
	 */
	async loadOptions(
		node: { type: string; typeVersion: number; parameters: Record<string, unknown>; credentials?: Record<string, CredentialRef> },
		method: string,
		path: string,
	): Promise<Array<{ name: string; value: unknown; description?: string }>> {
		const credentials = Object.fromEntries(
			Object.entries(node.credentials ?? {}).map(([type, credential]) => [type, { id: credential.id, name: credential.name }]),
		);
		return await this.request('POST', '/rest/dynamic-node-parameters/options', {
			nodeTypeAndVersion: { name: node.type, version: node.typeVersion },
			methodName: method,
			path,
			currentNodeParameters: node.parameters,
			credentials,
		});
	}

	// ---- binary data ------------------------------------------------------------------------

	/**
	 * The bytes of an output item's binary property, as the editor's download button gets them
	 * (GET /rest/binary-data), or from the item itself when n8n kept them inline (base64 `data`).
	 */
	async binaryContent(binary: NonNullable<RunItem['binary']>[string]): Promise<Buffer> {
		if (typeof binary.data === 'string' && binary.id === undefined) return Buffer.from(binary.data, 'base64');
		if (!binary.id) throw new Error(`The binary data "${binary.fileName ?? ''}" has neither an id nor inline data`);
		const path = `/rest/binary-data?${new URLSearchParams({ id: binary.id, action: 'download' }).toString()}`;
		const response = await fetch(`${this.url}${path}`, { headers: { cookie: this.cookie }, signal: AbortSignal.timeout(60000) });
		if (!response.ok) throw new N8nApiError('GET', path, response.status, await response.text());
		return Buffer.from(await response.arrayBuffer());
	}

	// ---- workflows --------------------------------------------------------------------------

	async createWorkflow(workflow: WorkflowJson): Promise<StoredWorkflow> {
		const {
			id: _id,
			active: _active,
			versionId: _versionId,
			...rest
		} = workflow as WorkflowJson & { id?: string; active?: boolean; versionId?: string };
		// `active: false` as the editor of n8n 1.x sends it (its column has no default there); 2.x ignores it.
		return await this.request<StoredWorkflow>('POST', '/rest/workflows', { settings: {}, ...rest, active: false });
	}

	async getWorkflow(id: string): Promise<StoredWorkflow> {
		return await this.request<StoredWorkflow>('GET', `/rest/workflows/${id}`);
	}

	/** Publishes (activates) the workflow's current version: its triggers and webhooks go live. */
	async activateWorkflow(id: string): Promise<StoredWorkflow> {
		const workflow = await this.getWorkflow(id);
		return await this.request<StoredWorkflow>('POST', `/rest/workflows/${id}/activate`, { versionId: workflow.versionId });
	}

	async deactivateWorkflow(id: string): Promise<void> {
		await this.request('POST', `/rest/workflows/${id}/deactivate`, {});
	}

	// ---- executions -------------------------------------------------------------------------

	/**
	 * Starts the workflow as the editor's "Execute workflow" button does, from its manual trigger
	 * (or the given trigger node); resolves with the execution id as soon as it is running. The
	 * workflow goes along, as n8n 1.x's editor sends it (1.x runs what it is sent; 2.x reads the
	 * saved workflow and ignores it).
	 */
	async startWorkflow(workflowId: string, triggerName?: string): Promise<string> {
		const workflow = await this.getWorkflow(workflowId);
		const trigger = triggerName ?? workflow.nodes.find((node) => /manualTrigger$/i.test(node.type))?.name;
		if (!trigger) throw new Error(`Workflow "${workflow.name}" has no manual trigger; name the trigger node to start from`);
		const result = await this.request<{ executionId?: string; waitingForWebhook?: boolean }>('POST', `/rest/workflows/${workflowId}/run`, {
			triggerToStartFrom: { name: trigger },
			workflowData: workflow,
		});
		if (!result?.executionId) throw new Error(`n8n did not start workflow ${workflowId}: ${JSON.stringify(result)}`);
		return result.executionId;
	}

	async getExecution(id: string): Promise<ExecutionResult> {
		const raw = await this.request<{
			id: string;
			status: string;
			finished: boolean;
			mode: string;
			waitTill?: string | null;
			createdAt?: string;
			startedAt?: string | null;
			stoppedAt?: string | null;
			data?: string;
		}>('GET', `/rest/executions/${id}`);
		const data = ((raw.data ? decodeFlatted(raw.data) : undefined) ?? {}) as {
			resultData?: { runData?: Record<string, NodeRun[]>; error?: ExecutionResult['error']; lastNodeExecuted?: string };
		};
		const execution: ExecutionResult = {
			id: raw.id,
			status: raw.status,
			finished: raw.finished,
			mode: raw.mode,
			waitTill: raw.waitTill,
			createdAt: raw.createdAt,
			startedAt: raw.startedAt,
			stoppedAt: raw.stoppedAt,
			runData: data.resultData?.runData ?? {},
			error: data.resultData?.error,
			lastNodeExecuted: data.resultData?.lastNodeExecuted,
		};
		this.seenExecutions.set(execution.id, execution);
		return execution;
	}

	/**
	 * Polls until the execution reaches one of `statuses` (default: any final status) and returns
	 * it with its run data. Pass ['waiting'] to stop at a paused execution.
	 */
	async waitForExecution(id: string, options: { timeoutMs?: number; statuses?: string[] } = {}): Promise<ExecutionResult> {
		const wanted = new Set(options.statuses ?? TERMINAL_STATUSES);
		const deadline = Date.now() + (options.timeoutMs ?? 60000);
		let last: ExecutionResult | undefined;
		for (;;) {
			try {
				last = await this.getExecution(id);
				// n8n 1.123 can mark an execution successful a moment before its data is saved ("Found
				// successful execution where data is empty stringified array"): read it again then.
				const dataNotSaved = last.status === 'success' && Object.keys(last.runData).length === 0;
				if (wanted.has(last.status) && !dataNotSaved) return last;
			} catch (error) {
				// Right after the run starts the execution may not be saved yet.
				if (!(error instanceof N8nApiError && error.status === 404)) throw error;
			}
			if (Date.now() > deadline) {
				throw new Error(
					`Execution ${id} did not reach ${[...wanted].join('/')} within ${options.timeoutMs ?? 60000} ms (last status: ${last?.status ?? 'not found'})`,
				);
			}
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}

	/** Runs the workflow from its manual trigger and waits for the result. */
	async runWorkflow(workflowId: string, options: { triggerName?: string; timeoutMs?: number } = {}): Promise<ExecutionResult> {
		const executionId = await this.startWorkflow(workflowId, options.triggerName);
		return await this.waitForExecution(executionId, { timeoutMs: options.timeoutMs });
	}

	/** The editor's "Stop" button. */
	async stopExecution(id: string): Promise<void> {
		await this.request('POST', `/rest/executions/${id}/stop`, {});
	}

	/**
	 * Waits for an execution of the workflow that is not in `known` (e.g. one a trigger starts),
	 * then for it to finish (or reach one of `statuses`). Take `known` from executionIds() before
	 * causing the execution.
	 */
	async waitForNewExecution(
		workflowId: string,
		known: Set<string>,
		options: { timeoutMs?: number; statuses?: string[] } = {},
	): Promise<ExecutionResult> {
		const timeoutMs = options.timeoutMs ?? 60000;
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const fresh = (await this.listExecutions(workflowId)).filter((execution) => !known.has(execution.id));
			if (fresh.length > 0) {
				const oldest = fresh.sort((a, b) => Number(a.id) - Number(b.id))[0]!;
				return await this.waitForExecution(oldest.id, { timeoutMs: Math.max(1000, deadline - Date.now()), statuses: options.statuses });
			}
			if (Date.now() > deadline) throw new Error(`No new execution of workflow ${workflowId} within ${timeoutMs} ms`);
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}

	/** Ids of the workflow's executions so far (for waitForNewExecution). */
	async executionIds(workflowId: string): Promise<Set<string>> {
		// As many as n8n lists (100): with its default 20, an older execution past the 20th counted as new
		// for a caller that lists more (the queue-mode trigger case failed on it once).
		return new Set((await this.listExecutions(workflowId, { limit: 100 })).map((execution) => execution.id));
	}

	/** Executions of a workflow, newest first (without run data); n8n lists 20 unless `limit` (at most 100) says otherwise. */
	async listExecutions(workflowId: string, options: { limit?: number } = {}): Promise<Array<{ id: string; status: string; mode: string }>> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const limit = options.limit === undefined ? '' : `&limit=${options.limit}`;
		const result = await this.request<{ results: Array<{ id: string; status: string; mode: string }> }>(
			'GET',
			`/rest/executions?filter=${filter}${limit}`,
		);
		return result.results;
	}
}

/** The items a node output (default: its first output of its last run). */
export function outputItems(execution: ExecutionResult, nodeName: string, outputIndex = 0): RunItem[] {
	const runs = execution.runData[nodeName];
	if (!runs || runs.length === 0) {
		throw new Error(`Node "${nodeName}" did not run (ran: ${Object.keys(execution.runData).join(', ') || 'nothing'})`);
	}
	return runs[runs.length - 1]!.data?.main?.[outputIndex] ?? [];
}

/** A one-line description of why an execution did not succeed, for assertion messages. */
export function describeFailure(execution: ExecutionResult): string {
	if (execution.status === 'success') return 'succeeded';
	const nodeErrors = Object.entries(execution.runData)
		.flatMap(([name, runs]) =>
			runs
				.filter((run) => run.error)
				.map((run) => `${name}: ${run.error?.message ?? 'error'}${run.error?.description ? ` (${run.error.description})` : ''}`),
		)
		.join('; ');
	return `status ${execution.status}${execution.error?.message ? `: ${execution.error.message}` : ''}${nodeErrors ? ` [${nodeErrors}]` : ''}`;
}
