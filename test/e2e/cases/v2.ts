/**
 * Host Cloud on the v2 jobs API, in the real n8n: a second simulator in the v2 flavour (cloud
 * surface) and its Host Cloud V2 API credential created through n8n's REST API, then every
 * operation v2 serves run as a user runs it (Execute with links and with files, Submit → Wait for
 * Completion, Get Status, Cancel Jobs, Upload Image then Execute with its asset reference, Get Job
 * Workflow, Get Output URL and Download Output by asset id, n8n's Stop of a running Execute), the
 * credential test, and what v2 cannot serve refused by name with nothing sent. The last case checks
 * every exchange the v2 server had against the published contract.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { contractBreaches } from '../../support/v2-contract';
import { e2e } from '../support/context';
import { describeFailure, outputItems, type ExecutionResult, type WorkflowNode } from '../support/n8n-client';
import { waitFor } from '../support/wait';
import { assetBytes, imageFromV2Server, startV2Server, type V2Server } from '../support/v2-server';
import { hostNodeType, linearWorkflow, loadExamples, manualTriggerNode } from '../support/workflows';

const GRAPH = readFileSync(join(__dirname, '..', '..', 'fixtures', 'txt2img-api.json'), 'utf8');
const WRONG_API_KEY = 'wrong-v2-api-key-e2e-0005';
/** The simulator's time per graph node while a case needs a job still running. */
const SLOW_NODE_MS = 3000;

type Step = Omit<WorkflowNode, 'position' | 'id'>;

/** A Host Cloud node on v2 with the v2 credential (bound on import to the case's server). */
function hostCloudV2(name: string, parameters: Record<string, unknown>): Step {
	return {
		name,
		type: hostNodeType('hostCloud'),
		typeVersion: 3,
		parameters: { apiGeneration: 'v2', ...parameters },
		credentials: { hostCloudV2Api: { id: '', name: 'Host Cloud V2 API' } },
	};
}

const execute = (downloadFiles: boolean, workflow = GRAPH) =>
	hostCloudV2('Execute', { resource: 'workflow', operation: 'execute', workflow, downloadFiles, additionalFields: {} });

/** The image-to-image example's sample picture: Set (base64) → Convert to File, binary `data`. */
function samplePictureSteps(): { steps: Step[]; bytes: Buffer } {
	const example = loadExamples().find((entry) => entry.file === 'image-to-image.json')!.workflow;
	const picture = example.nodes.find((node) => node.type === 'n8n-nodes-base.set')!;
	const convert = example.nodes.find((node) => node.type === 'n8n-nodes-base.convertToFile')!;
	const base64 = (picture.parameters.assignments as { assignments: Array<{ value: string }> }).assignments[0]!.value;
	const strip = ({ name, type, typeVersion, parameters }: WorkflowNode): Step => ({ name, type, typeVersion, parameters });
	return { steps: [strip(picture), strip(convert)], bytes: Buffer.from(base64, 'base64') };
}

/** The example's image-to-image graph, its Load Image (node 1) taking the item's asset_reference: an expression building the JSON. */
function img2imgWithAssetReference(): string {
	const example = loadExamples().find((entry) => entry.file === 'image-to-image.json')!.workflow;
	const host = example.nodes.find((node) => node.type === hostNodeType('hostCloud'))!;
	const graph = JSON.stringify(JSON.parse(String(host.parameters.workflow)), null, 2);
	// "}}" would end n8n's expression early: the pretty-printed graph never has two braces side by side.
	if (graph.includes('}}')) throw new Error('The graph literal holds "}}"');
	return `={{ JSON.stringify(Object.assign(${graph}, { "1": { "class_type": "LoadImage", "inputs": { "image": $json.asset_reference } } })) }}`;
}

describe('Host Cloud on the v2 jobs API in n8n', () => {
	let server: V2Server | undefined;
	function started(): V2Server {
		if (!server) throw new Error('The v2 server did not start (see the first error above)');
		return server;
	}

	beforeAll(async () => {
		server = await startV2Server(e2e());
	});

	afterAll(async () => {
		await server?.close();
	});

	async function run(name: string, steps: Step[], timeoutMs = 60000): Promise<ExecutionResult> {
		const stack = e2e();
		const workflow = await stack.importWorkflow(linearWorkflow(`Host Cloud v2: ${name}`, [manualTriggerNode(), ...steps]), undefined, {
			hostCloudV2Api: started().credential,
		});
		return await stack.client.runWorkflow(workflow.id, { timeoutMs });
	}

	async function succeeded(name: string, steps: Step[]): Promise<ExecutionResult> {
		const execution = await run(name, steps);
		expect(describeFailure(execution)).toBe('succeeded');
		return execution;
	}

	/** Runs `work` with the v2 simulator's nodes slowed down, then puts the previous value back. */
	async function slowly<T>(work: () => Promise<T>): Promise<T> {
		const { options } = started().simulator;
		const previous = options.nodeMs;
		options.nodeMs = SLOW_NODE_MS;
		try {
			return await work();
		} finally {
			options.nodeMs = previous;
		}
	}

	/** A finished job of this server, made by Execute (for the cases that read one back). */
	let finishedJob: { jobId: string; assetId: string } | undefined;
	function finished(): { jobId: string; assetId: string } {
		if (!finishedJob) throw new Error('Execute with files did not run (see its error above)');
		return finishedJob;
	}

	it('the credential test passes on the v2 server; a wrong key fails in words without showing it; n8n asked each time', async () => {
		const { client } = e2e();
		const { simulator, credential } = started();
		const before = simulator.v2.exchanges.length;
		expect(await client.testCredential(credential)).toEqual({ status: 'OK', message: expect.any(String) });
		const wrong = await client.testCredential(credential, { apiKey: WRONG_API_KEY });
		expect(wrong.status).toBe('Error');
		expect(wrong.message).toMatch(/API key was rejected \(401 unauthorized\)/);
		expect(wrong.message).not.toContain(WRONG_API_KEY);
		const seen = simulator.v2.exchanges.slice(before);
		expect(seen.map((x) => `${x.method} ${x.path} → ${x.status}`)).toEqual([
			'GET /api/v2/jobs/00000000-0000-4000-8000-000000000000 → 404',
			'GET /api/v2/jobs/00000000-0000-4000-8000-000000000000 → 401',
		]);
	});

	it('Execute with links: the job’s outputs as short-lived links that give the asset’s bytes, no binary data', async () => {
		const { simulator } = started();
		const execution = await succeeded('Execute (links)', [execute(false)]);
		const [item] = outputItems(execution, 'Execute');
		const jobId = item!.json.job_id as string;
		expect(item!.json).toMatchObject({ job_id: jobId, prompt_id: jobId, status: 'succeeded' });
		expect(simulator.v2.jobs.get(jobId)?.status).toBe('succeeded');
		const image = (item!.json.images as Array<{ asset_id: string; url: string; content_type: string }>)[0]!;
		expect(image.content_type).toBe('image/png');
		expect(item!.binary ?? {}).toEqual({});
		const response = await fetch(image.url);
		expect(response.status).toBe(200);
		expect(Buffer.from(await response.arrayBuffer()).equals(await assetBytes(simulator, image.asset_id))).toBe(true);
	});

	it('Execute with files: the image in binary data with the output asset’s bytes', async () => {
		const stack = e2e();
		const execution = await succeeded('Execute (files)', [execute(true)]);
		const { jobId, assetId } = await imageFromV2Server(execution, 'Execute', stack, started());
		finishedJob = { jobId, assetId };
	});

	it('Submit → Wait for Completion on {{$json.prompt_id}}: the submitted job, followed to its image', async () => {
		const stack = e2e();
		const execution = await succeeded('Submit then Wait', [
			hostCloudV2('Submit', { resource: 'workflow', operation: 'submit', workflow: GRAPH, additionalFields: {} }),
			hostCloudV2('Wait for Completion', { resource: 'workflow', operation: 'waitForCompletion', promptId: '={{ $json.prompt_id }}' }),
		]);
		const submitted = outputItems(execution, 'Submit')[0]!.json;
		const { jobId } = await imageFromV2Server(execution, 'Wait for Completion', stack, started());
		expect(submitted.job_id).toBe(jobId);
	});

	it('Get Status of a finished job: succeeded, with its outputs', async () => {
		const { jobId, assetId } = finished();
		const execution = await succeeded('Get Status', [
			hostCloudV2('Get Status', { resource: 'workflow', operation: 'getStatus', promptId: jobId }),
		]);
		const json = outputItems(execution, 'Get Status')[0]!.json;
		expect(json).toMatchObject({ job_id: jobId, prompt_id: jobId, status: 'succeeded', finished: true });
		expect((json.images as Array<{ asset_id: string }>).map((image) => image.asset_id)).toContain(assetId);
	});

	it('Cancel Jobs of a submitted running job: the job is cancelled on the server by its own cancel request', async () => {
		const { simulator } = started();
		await slowly(async () => {
			const submitted = await succeeded('Submit (to be cancelled)', [
				hostCloudV2('Submit', { resource: 'workflow', operation: 'submit', workflow: GRAPH, additionalFields: {} }),
			]);
			const jobId = outputItems(submitted, 'Submit')[0]!.json.job_id as string;
			const execution = await succeeded('Cancel Jobs', [
				hostCloudV2('Cancel Jobs', { resource: 'queue', operation: 'cancelJobs', promptIds: jobId }),
			]);
			const answer = outputItems(execution, 'Cancel Jobs')[0]!.json as {
				requested: string[];
				jobs: Array<{ job_id: string; status: string }>;
			};
			expect(answer.requested).toEqual([jobId]);
			expect(answer.jobs).toEqual([expect.objectContaining({ job_id: jobId, status: expect.stringMatching(/^cancel(ing|ed)$/) })]);
			await waitFor('the job to be canceled on the v2 server', () => simulator.v2.jobs.get(jobId)?.status === 'canceled', {
				timeoutMs: 30000,
			});
			expect(simulator.requestsTo('POST', `/api/v2/jobs/${jobId}/cancel`)).toHaveLength(1);
		});
	});

	it('Upload Image, then Execute with its asset reference: the job ran on the uploaded asset', async () => {
		const { simulator } = started();
		const picture = samplePictureSteps();
		const execution = await succeeded('Upload Image then Execute', [
			...picture.steps,
			hostCloudV2('Upload Image', { resource: 'file', operation: 'uploadImage', binaryPropertyName: 'data' }),
			execute(true, img2imgWithAssetReference()),
		]);
		const upload = outputItems(execution, 'Upload Image')[0]!.json;
		const assetId = upload.id as string;
		expect(upload.asset_reference).toEqual({ __type: 'core/ASSET', info: { id: assetId, file_path: 'input.png' } });
		expect((await assetBytes(simulator, assetId)).equals(picture.bytes)).toBe(true);
		expect(simulator.v2.assets.get(assetId)?.tags).toEqual(['input']);
		const jobId = outputItems(execution, 'Execute')[0]!.json.job_id as string;
		const job = simulator.v2.jobs.get(jobId)!;
		expect(job.status).toBe('succeeded');
		expect((job.workflow['1'] as { inputs: Record<string, unknown> }).inputs.image).toEqual(upload.asset_reference);
	});

	it('Get Job Workflow answers the graph the job ran, in API format', async () => {
		const { jobId } = finished();
		const execution = await succeeded('Get Job Workflow', [
			hostCloudV2('Get Job Workflow', { resource: 'workflow', operation: 'getJobWorkflow', jobId }),
		]);
		expect(outputItems(execution, 'Get Job Workflow')[0]!.json).toMatchObject({
			job_id: jobId,
			format: 'api',
			workflow: JSON.parse(GRAPH),
		});
	});

	it('Get Output URL and Download Output by Asset ID: a fresh link and the asset’s bytes', async () => {
		const stack = e2e();
		const { simulator } = started();
		const { assetId } = finished();
		const execution = await succeeded('Output by asset id', [
			hostCloudV2('Get Output URL', { resource: 'file', operation: 'getOutputUrl', assetId }),
			hostCloudV2('Download Output', { resource: 'file', operation: 'downloadOutput', assetId }),
		]);
		const kept = await assetBytes(simulator, assetId);
		const link = outputItems(execution, 'Get Output URL')[0]!.json;
		expect(link).toMatchObject({ id: assetId, size_bytes: kept.length, content_type: 'image/png' });
		const response = await fetch(String(link.url));
		expect(Buffer.from(await response.arrayBuffer()).equals(kept)).toBe(true);
		const binary = outputItems(execution, 'Download Output')[0]!.binary?.data;
		expect(binary?.mimeType).toBe('image/png');
		expect((await stack.client.binaryContent(binary!)).equals(kept)).toBe(true);
	});

	it('n8n’s Stop of a running Execute cancels exactly its job on the v2 server', async () => {
		const { client, importWorkflow } = e2e();
		const { simulator, credential } = started();
		const workflow = await importWorkflow(
			linearWorkflow('Host Cloud v2: to be stopped', [manualTriggerNode(), execute(false)]),
			undefined,
			{
				hostCloudV2Api: credential,
			},
		);
		await slowly(async () => {
			const before = new Set(simulator.v2.jobs.keys());
			const cancelsBefore = simulator.requestsTo('POST', '/api/v2/jobs/').filter((request) => request.path.endsWith('/cancel')).length;
			const executionId = await client.startWorkflow(workflow.id);
			const jobId = await waitFor(
				'the job to run on the v2 server',
				() => [...simulator.v2.jobs.entries()].find(([id, job]) => !before.has(id) && job.status === 'running')?.[0],
			);
			await client.stopExecution(executionId);
			const stopped = await client.waitForExecution(executionId, { timeoutMs: 30000 });
			expect(stopped.status).toBe('canceled');
			await waitFor('the job to be canceled on the v2 server', () => simulator.v2.jobs.get(jobId)?.status === 'canceled', {
				timeoutMs: 30000,
			});
			const cancels = simulator.requestsTo('POST', '/api/v2/jobs/').filter((request) => request.path.endsWith('/cancel'));
			expect(cancels.slice(cancelsBefore).map((request) => request.path)).toEqual([`/api/v2/jobs/${jobId}/cancel`]);
		});
	});

	it.each([
		['Queue → Get', { resource: 'queue', operation: 'get' }],
		['Queue → Interrupt Running', { resource: 'queue', operation: 'interrupt' }],
		['Queue → Cancel Jobs of an Execution', { resource: 'queue', operation: 'cancelExecutionJobs', executionId: '1' }],
		['Server → Free Memory', { resource: 'server', operation: 'freeMemory' }],
		['System → Get Node Definitions', { resource: 'system', operation: 'getNodeDefinitions', nodeClass: 'KSampler' }],
		['Workflow → Convert to API Format', { resource: 'workflow', operation: 'convert', workflow: GRAPH }],
	])('%s is refused by name on v2, and the v2 server received nothing for it', async (name, parameters) => {
		const { simulator } = started();
		const before = simulator.requests.length;
		const execution = await run(`refused ${name}`, [hostCloudV2('Refused', parameters)]);
		expect(execution.status).toBe('error');
		const error = execution.runData.Refused?.[0]?.error;
		expect(error?.message).toMatch(
			new RegExp(`^${name.replace(/[()]/g, '\\$&')} is not available on the v2 API, which the node's Host Cloud V2 API credential speaks: `),
		);
		expect(error?.description).toMatch(/Nothing was sent with the Host Cloud V2 API credential/);
		expect(simulator.requests.slice(before)).toEqual([]);
	});

	it('every exchange the v2 server had in these cases is valid under the published contract', () => {
		const { simulator } = started();
		expect(simulator.v2.exchanges.length).toBeGreaterThan(0);
		expect(contractBreaches(simulator)).toEqual([]);
	});
});
