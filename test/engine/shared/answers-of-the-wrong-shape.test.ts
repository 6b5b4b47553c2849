/**
 * Answers that are not what the API describes (an HTML page, an empty or cut-off body, null, a
 * list, an object without the field that matters) are errors that say what came: never data, and
 * never a guessed status. Served by a hostile service on loopback, run through n8n's engine.
 */
import type { ServerResponse } from 'node:http';

import { EngineHarness } from '../../support/engine';
import { startHostileService, type HostileService } from '../../support/hostile-service';
import { hostApiCredential, hostCloudApiCredential } from '../../support/credential-fixtures';

const TASK_ID = '0b6c8d9e-1f2a-4b3c-8d4e-5f6a7b8c9d0e';

/** What the service answers with status 200 for the next request, as raw text with its content type. */
let next: { type: string; text: string } = { type: 'application/json', text: '{}' };

const harness = new EngineHarness();
let service: HostileService;
let cloudCredential: string;
let apiCredential: string;

beforeAll(async () => {
	service = await startHostileService((_req, res: ServerResponse) => {
		res.writeHead(200, { 'Content-Type': next.type });
		res.end(next.text);
	});
	cloudCredential = harness.addCredential(
		'hostCloudApi',
		hostCloudApiCredential({ apiKey: 'cloud-key-wrong-shape-0123', baseUrl: service.url }),
	);
	apiCredential = harness.addCredential(
		'hostApi',
		hostApiCredential({ accessToken: 'access-token-wrong-shape-0123', registryUrl: service.url }),
	);
});
afterAll(async () => {
	await service.close();
});

const HTML = { type: 'text/html', text: '<!DOCTYPE html><html><body><h1>Sign in to the Wi-Fi</h1></body></html>' };
const ANSWERS: Array<[string, { type: string; text: string }, string]> = [
	['an HTML page', HTML, 'an HTML page'],
	['an empty body', { type: 'application/json', text: '' }, 'an empty answer'],
	['cut-off JSON', { type: 'application/json', text: '{"status": "compl' }, 'JSON that is cut off or malformed'],
	['null', { type: 'application/json', text: 'null' }, 'null'],
	['a list', { type: 'application/json', text: '["completed"]' }, 'a list'],
];

function runCloud(parameters: Record<string, unknown>) {
	return harness.runNode({
		type: 'hostCloud',
		parameters: parameters as never,
		credentials: { hostCloudApi: cloudCredential },
		continueOnFail: true,
	});
}

describe('Host Cloud: Get Status', () => {
	it.each(ANSWERS)('a 200 that is %s is an error saying so, not a running job', async (_what, answer, words) => {
		next = answer;
		const result = await runCloud({ resource: 'workflow', operation: 'getStatus', promptId: 'p-1' });
		const json = result.items[0]!.json;
		expect(json.status).toBeUndefined();
		expect(json.state).toBeUndefined();
		expect(json.error).toBe(
			`The service answered with ${words} instead of the JSON object the API describes while reading the status of job p-1 (HTTP 200)`,
		);
	});

	it.each([
		['an error body', '{"error": "internal"}', 'it held: error'],
		['an empty object', '{}', 'it was an empty object'],
		['a status that is not a word', '{"status": null}', 'it held: status'],
	])('a 200 with %s has no status, and says so', async (_what, text, held) => {
		next = { type: 'application/json', text };
		const result = await runCloud({ resource: 'workflow', operation: 'getStatus', promptId: 'p-2' });
		expect(result.items[0]!.json.error).toBe(`The service's answer to reading the status of job p-2 has no status (${held})`);
	});
});

describe('Host Cloud: Get Node Definitions', () => {
	it('an HTML page is an error, not one item per character', async () => {
		next = HTML;
		const result = await runCloud({ resource: 'system', operation: 'getNodeDefinitions' });
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.json.error).toBe(
			'The service answered with an HTML page instead of the JSON object the API describes while reading the node definitions (HTTP 200)',
		);
	});
});

describe('Host Media: Get Task Status', () => {
	it.each(ANSWERS)('a 200 that is %s is an error saying so', async (_what, answer, words) => {
		next = answer;
		const result = await harness.runNode({
			type: 'hostMedia',
			parameters: { resource: 'image', operation: 'getTaskStatus', taskType: 'image-upscaler', taskId: TASK_ID } as never,
			credentials: { hostApi: apiCredential },
			continueOnFail: true,
		});
		expect(result.items[0]!.json.error).toMatch(
			new RegExp(
				`^The service answered with ${words} instead of the JSON object the API describes while checking .*${TASK_ID} \\(HTTP 200\\)$`,
			),
		);
	});
});
