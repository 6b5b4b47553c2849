/**
 * The whole stack the demo (`npm start`) and the e2e suite run on: the simulator (in this
 * process, so tests can read its request log and inject faults), a real n8n with this package
 * installed as a community package, an owner account, one credential of each type pointing at the
 * simulator, and the example workflows imported. `stop()` undoes all of it; it also runs on Ctrl-C.
 */
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../simulator/server';
import { prepareInstance, productionWebhookUrl, V2_CREDENTIAL_TYPE } from './instance-setup';
import { DEMO_OWNER, type CredentialRef, type N8nClient, type OwnerAccount, type StoredWorkflow, type WorkflowJson } from './n8n-client';
import { packageLoadProblem, startN8n, type N8nServer } from './n8n-server';
import { startOutsideWorld, type OutsideWorld } from './outside-world';
import { defaultProgress, ensureN8nRuntime, type N8nRuntime, type ProgressLog, type RuntimeVersions } from './runtime';
import { stopList } from './stop-list';
import { loadExamples, type ExampleFile } from './workflows';

export { CREDENTIAL_NAMES, DEMO_PUBLISHER_ID, DEMO_PUBLISHING_TOKEN, DEMO_REPOHOST_TOKEN } from './instance-setup';

export interface ImportedExample extends ExampleFile {
	stored: StoredWorkflow;
}

export interface HostStack {
	runtime: N8nRuntime;
	simulator: Simulator;
	/** Files "from the internet" for examples that download something (offline stand-in). */
	outside: OutsideWorld;
	n8n: N8nServer;
	/** Signed in as the owner. */
	client: N8nClient;
	owner: OwnerAccount;
	/** By credential type: hostCloudApi, hostApi. */
	credentials: Record<'hostCloudApi' | 'hostApi', CredentialRef>;
	/** The data each credential was created with (the right secrets). */
	credentialData: Record<'hostCloudApi' | 'hostApi', Record<string, string>>;
	/** examples/*.json as imported (empty unless importExamples). */
	examples: ImportedExample[];
	/** Node types (full names) this n8n has loaded that declare webhooks. */
	nodeTypesWithWebhooks: Set<string>;
	/**
	 * Imports a workflow with its credentials bound to this stack's (or, by type, to those given in
	 * `credentials`) and returns it as stored.
	 */
	/** `leaveUnbound`: credential types left as the file names them when none is given (the v2 one: each case has its own server). */
	importWorkflow(
		workflow: WorkflowJson,
		name?: string,
		credentials?: Record<string, CredentialRef>,
		leaveUnbound?: readonly string[],
	): Promise<StoredWorkflow>;
	/** n8n's production URL of a trigger node's webhook (activate the workflow first). */
	webhookUrl(workflow: WorkflowJson, nodeName: string, path: string): string;
	stop(): Promise<void>;
}

export interface StartStackOptions {
	simulator?: SimulatorOptions;
	/** Import examples/*.json (default true). */
	importExamples?: boolean;
	/** Extra n8n environment. */
	n8nEnv?: Record<string, string>;
	/** The n8n and Node to run (default: n8n 2.x on Node 24, `N8N_2_RUNTIME`). */
	runtime?: RuntimeVersions;
	progress?: ProgressLog;
}

const step = (progress: ProgressLog, line: string) => progress(line);

export async function startHostStack(options: StartStackOptions = {}): Promise<HostStack> {
	const progress = options.progress ?? defaultProgress;
	const stops = stopList(progress);

	try {
		const runtime = await ensureN8nRuntime(progress, options.runtime);

		const simulator = await startSimulator(options.simulator ?? {});
		stops.add(() => simulator.close());
		step(progress, `simulator: cloud ${simulator.baseUrl}, registry ${simulator.registryUrl}`);
		const outside = await startOutsideWorld();
		stops.add(() => outside.close());

		step(progress, `starting n8n ${runtime.n8nVersion} on Node ${runtime.nodeVersion}`);
		const started = Date.now();
		const n8n = await startN8n({ runtime, env: options.n8nEnv });
		stops.add(() => n8n.stop());
		step(progress, `n8n ready at ${n8n.url} in ${((Date.now() - started) / 1000).toFixed(1)}s (user folder ${n8n.userFolder})`);

		const loadProblem = packageLoadProblem(n8n.logFile);
		if (loadProblem) throw new Error(`n8n could not load the built package (check \`npm run build\`):\n${loadProblem}`);

		const { client, credentials, credentialData, nodeTypesWithWebhooks, importWorkflow } = await prepareInstance(n8n, simulator);

		const examples: ImportedExample[] = [];
		if (options.importExamples ?? true) {
			for (const example of loadExamples()) {
				// The v2 example's credential is its own server's, bound when it runs (support/example-checks.ts).
				examples.push({ ...example, stored: await importWorkflow(example.workflow, undefined, {}, [V2_CREDENTIAL_TYPE]) });
			}
			step(
				progress,
				`imported ${examples.length} example workflow(s)${examples.length ? `: ${examples.map((e) => e.file).join(', ')}` : ''}`,
			);
		}

		return {
			runtime,
			simulator,
			outside,
			n8n,
			client,
			owner: DEMO_OWNER,
			credentials,
			credentialData,
			examples,
			nodeTypesWithWebhooks,
			importWorkflow,
			webhookUrl: (workflow, nodeName, path) => productionWebhookUrl(n8n.url, workflow, nodeName, path),
			async stop() {
				await stops.release();
			},
		};
	} catch (error) {
		await stops.release();
		throw error;
	}
}
