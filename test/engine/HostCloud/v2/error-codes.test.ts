/**
 * Errors as the v2 contract types them, through n8n's engine against a loopback v2 server: a failed
 * item carries the envelope's code (`error_code`) and message, with a headline and hint per code; a
 * refused workflow's nodes are named as v1's refused-workflow lines are; a 429 is waited out per
 * Retry-After, and one that asks longer than the request may wait says which limit it was. The key
 * never shows. Driven by Workflow → Get Job Workflow, the v2 read this work adds; the other v2
 * operations share the same transport and terms.
 */
import type { ServerResponse } from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import { EngineHarness } from '../../../support/engine';
import { sendJson, startHostileService, type HostileService } from '../../../support/hostile-service';

const API_KEY = 'v2-error-codes-key-0123456789';
const JOB_ID = '7f3d2c1b-9a8e-4d6f-b012-3c4d5e6f7a8b';
const harness = new EngineHarness();
let service: HostileService;
let credential: string;
let answers: Array<(res: ServerResponse) => void>;

beforeAll(async () => {
	service = await startHostileService((_req, res) => (answers.shift() ?? ((last) => sendJson(last, 500, {})))(res));
	credential = harness.addCredential('hostCloudV2Api', { baseUrl: service.url, apiKey: API_KEY });
});
beforeEach(() => {
	service.seen.length = 0;
});
afterAll(async () => {
	await service.close();
});

/** An error envelope whose message echoes the key, as a careless server might. */
const envelope =
	(status: number, code: string, details?: IDataObject, headers: Record<string, string> = {}) =>
	(res: ServerResponse) =>
		sendJson(res, status, { error: { code, message: `${code} for ${API_KEY}`, details: details ?? null } }, headers);

const workflowAnswer = (res: ServerResponse) => sendJson(res, 200, { format: 'api', workflow: { '1': { class_type: 'X', inputs: {} } } });

function getJobWorkflow(onError?: 'continueErrorOutput') {
	return harness.runNode({
		type: 'hostCloud',
		parameters: { apiGeneration: 'v2', resource: 'workflow', operation: 'getJobWorkflow', jobId: JOB_ID } as never,
		credentials: { hostCloudV2Api: credential },
		...(onError ? { onError } : { continueOnFail: true }),
	});
}

test.each([
	[
		401,
		'unauthorized',
		/^The API key was rejected while reading the workflow of job \S+ \(HTTP 401 unauthorized\): unauthorized for \*+/,
		/API Key of the Host Cloud V2 API credential/,
	],
	[402, 'insufficient_credits', /^Insufficient credits .*\(HTTP 402 insufficient_credits\)/, /Add credits/],
	[403, 'forbidden', /^The API key is not allowed to do this .*\(HTTP 403 forbidden\)/, /subscription is active/],
	[404, 'not_found', /^Not found .*\(HTTP 404 not_found\)/, /past its retention/],
	[409, 'hash_mismatch', /^The file changed on the way .*\(HTTP 409 hash_mismatch\)/, /upload the file again/],
	[409, 'asset_in_use', /^The asset is in use .*\(HTTP 409 asset_in_use\)/, /cannot be deleted now/],
	[
		422,
		'workflow_format_ui',
		/^The workflow is in UI format, which the v2 API does not take .*\(HTTP 422 workflow_format_ui\)/,
		/Convert to API Format/,
	],
	[422, 'idempotency_key_reuse', /already seen this request.s Idempotency-Key .*\(HTTP 422 idempotency_key_reuse\)/, /may have made a job/],
	[422, 'deployment_stopped', /^The deployment is stopped .*\(HTTP 422 deployment_stopped\)/, /operator/],
])('%i %s: the item carries the code, the headline and the hint, never the key', async (status, code, message, hint) => {
	answers = [envelope(status, code)];
	const result = await getJobWorkflow();
	const json = result.items[0]!.json;
	expect(json).toMatchObject({ error_code: code, httpCode: String(status) });
	expect(json.error).toMatch(message);
	expect(json.errorDetails).toMatch(hint);
	expect(JSON.stringify(result.items)).not.toContain(API_KEY);
	expect(service.seen).toHaveLength(1);
});

test('422 invalid_workflow names each refused node, in the contract’s shape and in v1’s', async () => {
	answers = [
		envelope(422, 'invalid_workflow', {
			node_errors: {
				'12': [{ field: 'model', reason: 'missing_input' }],
				'4': {
					class_type: 'CheckpointLoaderSimple',
					errors: [
						{
							type: 'value_not_in_list',
							message: 'Value not in list',
							extra_info: { input_name: 'ckpt_name', received_value: 'nope.safetensors', input_config: [['a.safetensors']] },
						},
					],
				},
			},
		}),
	];
	const json = (await getJobWorkflow()).items[0]!.json;
	expect(json.error_code).toBe('invalid_workflow');
	expect(json.error).toMatch(/^The workflow was refused .*\(HTTP 422 invalid_workflow\): invalid_workflow for \*+/);
	expect(json.error).toContain('Node 12: input model: missing input');
	expect(json.error).toContain(
		"Node 4 (CheckpointLoaderSimple): input ckpt_name: 'nope.safetensors' is not in the list (allowed: 'a.safetensors')",
	);
});

test('422 missing_asset names the node and the input the reference failed at', async () => {
	answers = [envelope(422, 'missing_asset', { node_id: '10', input: 'image' })];
	const json = (await getJobWorkflow()).items[0]!.json;
	expect(json.error).toMatch(/^The workflow references an asset that cannot be used .*\(HTTP 422 missing_asset\): .*Node 10, input image/);
	expect(json.errorDetails).toMatch(/File → Upload Image/);
});

test.each(['queue_full', 'deployment_not_ready', 'rate_limited'])(
	'429 %s asking longer than the request may wait: given up at once, saying which limit it was',
	async (code) => {
		answers = [envelope(429, code, undefined, { 'Retry-After': '3600' })];
		const json = (await getJobWorkflow()).items[0]!.json;
		expect(json.error).toMatch(new RegExp(`^The service asked to wait 3600 s before trying again \\(HTTP 429 ${code}: `));
		expect(json.error_code).toBe(code);
		expect(json.errorDetails).toMatch(new RegExp(`\\(it said: ${code} for \\*+`));
		expect(JSON.stringify(json)).not.toContain(API_KEY);
		expect(service.seen).toHaveLength(1);
	},
);

test('429 rate_limited with Retry-After 1 is waited out and the same read sent again: the item succeeds and says it waited', async () => {
	answers = [envelope(429, 'rate_limited', undefined, { 'Retry-After': '1' }), workflowAnswer];
	const result = await getJobWorkflow();
	expect(result.items[0]!.json).toMatchObject({ format: 'api', job_id: JOB_ID, waited_for_service_seconds: expect.any(Number) });
	expect(service.seen.map((req) => req.url)).toEqual([`/api/v2/jobs/${JOB_ID}/workflow`, `/api/v2/jobs/${JOB_ID}/workflow`]);
});

test('On Error → error output: the code rides under details, where n8n keeps an error item’s facts', async () => {
	answers = [envelope(402, 'insufficient_credits')];
	const result = await getJobWorkflow('continueErrorOutput');
	const errorItem = result.output('Node', 1)[0]!.json;
	expect(errorItem.details).toMatchObject({ error_code: 'insufficient_credits', httpCode: '402' });
});
