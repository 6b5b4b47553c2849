/**
 * Workflow → Get Job Workflow (`GET /api/v2/jobs/{id}/workflow`) through n8n's engine against a
 * loopback v2 server: it branches on `format` (`api`: the graph, ready for Execute; `save`: the
 * editor's workflow, with a hint that it runs again through the converter), and an answer of
 * another shape is an error that says what came, never an item. The id goes into the path as one
 * segment, under the credential's Base URL (a gateway's mount prefix kept), with the bearer key.
 */
import type { ServerResponse } from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import { EngineHarness } from '../../../support/engine';
import { sendJson, startHostileService, type HostileService } from '../../../support/hostile-service';

const API_KEY = 'v2-job-workflow-key-0123456789';
const JOB_ID = '7f3d2c1b-9a8e-4d6f-b012-3c4d5e6f7a8b';
const GRAPH = {
	'3': { class_type: 'KSampler', inputs: { seed: 5, model: ['4', 0] } },
	'4': { class_type: 'CheckpointLoaderSimple', inputs: {} },
};
const SAVED = { nodes: [{ id: 3, type: 'KSampler' }], links: [], version: 0.4 };
const harness = new EngineHarness();
let service: HostileService;
let answer: (res: ServerResponse) => void;

beforeAll(async () => {
	service = await startHostileService((_req, res) => answer(res));
});
beforeEach(() => {
	service.seen.length = 0;
});
afterAll(async () => {
	await service.close();
});

function getJobWorkflow(jobId: unknown = JOB_ID, baseUrl = service.url) {
	const credential = harness.addCredential('hostCloudV2Api', { baseUrl, apiKey: API_KEY });
	return harness.runNode({
		type: 'hostCloud',
		parameters: { apiGeneration: 'v2', resource: 'workflow', operation: 'getJobWorkflow', jobId } as never,
		credentials: { hostCloudV2Api: credential },
		continueOnFail: true,
	});
}

test('format api: the graph as workflow, ready for Execute; one GET under the Base URL with the bearer key', async () => {
	answer = (res) => sendJson(res, 200, { workflow: GRAPH, format: 'api' });
	const result = await getJobWorkflow(JOB_ID, `${service.url}/deployment/dep-1`);
	expect(result.items[0]!.json).toEqual({
		job_id: JOB_ID,
		prompt_id: JOB_ID,
		format: 'api',
		workflow: GRAPH,
		hint: expect.stringMatching(/pass workflow to Execute or Submit/),
	});
	expect(service.seen.map((req) => [req.method, req.url, req.headers.authorization])).toEqual([
		['GET', `/deployment/dep-1/api/v2/jobs/${JOB_ID}/workflow`, `Bearer ${API_KEY}`],
	]);
});

test('format save: the editor’s workflow, with the hint that it runs again through the converter', async () => {
	answer = (res) => sendJson(res, 200, { workflow: SAVED, format: 'save' });
	const json = (await getJobWorkflow()).items[0]!.json;
	expect(json).toMatchObject({ job_id: JOB_ID, format: 'save', workflow: SAVED });
	expect(json.hint).toMatch(/Convert to API Format on a v1 credential \(or run it with Execute on v1\)/);
});

test.each([
	['a format outside the enum', { workflow: GRAPH, format: 'ui' }, /answered format "ui" for the workflow of job/],
	['no format', { workflow: GRAPH }, /answered format null for the workflow of job/],
	['a workflow that is a list', { workflow: [GRAPH], format: 'api' }, /answered a workflow that is not an object/],
	['a workflow that is text', { workflow: JSON.stringify(GRAPH), format: 'api' }, /answered a workflow that is not an object/],
] as Array<[string, IDataObject, RegExp]>)(
	'an answer with %s is an error that says what came, never an item',
	async (_case, body, words) => {
		answer = (res) => sendJson(res, 200, body);
		const json = (await getJobWorkflow()).items[0]!.json;
		expect(json.error).toMatch(words);
		expect(json.workflow).toBeUndefined();
		expect(json.errorDetails).toMatch(/Base URL/);
	},
);

test('a Job ID that is not one path segment is refused by name before anything is sent', async () => {
	answer = (res) => sendJson(res, 200, { workflow: GRAPH, format: 'api' });
	const json = (await getJobWorkflow('../assets')).items[0]!.json;
	expect(json.error).toMatch(/^Job ID must not contain "\/"/);
	expect(service.seen).toHaveLength(0);
});
