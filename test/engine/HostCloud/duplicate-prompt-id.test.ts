/**
 * A service (or a caching proxy in front of it) that answers the same prompt_id for two submits:
 * both items fail, naming it, instead of the first waiting for ever or taking the other's outputs.
 */
import { EngineHarness } from '../../support/engine';
import { txt2img } from '../../support/cloud';
import { sendJson, startHostileService, type HostileService } from '../../support/hostile-service';
import { hostCloudApiCredential } from '../../support/credential-fixtures';

const harness = new EngineHarness();
let service: HostileService;
let credential: string;
/** Whether the service reports its one job as completed (else in progress for ever). */
let finished = false;

beforeAll(async () => {
	service = await startHostileService((req, res) => {
		const path = req.url.split('?')[0]!;
		if (req.method === 'POST' && path === '/api/prompt') return sendJson(res, 200, { prompt_id: 'same-1', number: 1, node_errors: {} });
		if (path === '/api/job/same-1/status') return sendJson(res, 200, { status: finished ? 'completed' : 'in_progress' });
		if (path === '/api/jobs/same-1') return sendJson(res, 200, { id: 'same-1', status: 'completed', outputs: {} });
		if (req.method === 'POST' && path === '/api/queue') return sendJson(res, 200, {});
		sendJson(res, 404, { error: { type: 'not_found', message: `no route ${path}` } });
	});
	credential = harness.addCredential(
		'hostCloudApi',
		hostCloudApiCredential({ apiKey: 'cloud-key-duplicate-0123456789', baseUrl: service.url }),
	);
});
afterAll(async () => {
	await service.close();
});

const run = (concurrency: number) =>
	harness.runNode(
		{
			type: 'hostCloud',
			parameters: {
				resource: 'workflow',
				operation: 'execute',
				workflow: JSON.stringify(txt2img()),
				waitOptions: { pollIntervalSeconds: 0.05, useWebSocket: false },
				additionalFields: { maxConcurrentJobs: concurrency },
			} as never,
			credentials: { hostCloudApi: credential },
			continueOnFail: true,
		},
		[{ json: { n: 0 } }, { json: { n: 1 } }],
	);

it('two items running at once and given the same prompt_id both fail, naming it (the first waited for ever)', async () => {
	finished = false;
	const result = await run(2);
	expect(result.items).toHaveLength(2);
	for (const [index, item] of result.items.entries()) {
		expect(item.pairedItem).toEqual({ item: index });
		expect(item.json.prompt_id).toBe('same-1');
		expect(item.json.error).toBe(
			'The service answered prompt_id same-1 for two different submits (items 0 and 1), so their results cannot be told apart; neither item uses them',
		);
	}
}, 30_000);

it('one after the other: the second item given the first one’s prompt_id fails, naming it, and gets none of its outputs', async () => {
	finished = true;
	const result = await run(1);
	expect(result.items[0]!.json).toMatchObject({ prompt_id: 'same-1', status: 'completed' });
	expect(result.items[1]!.json.error).toBe(
		'The service answered prompt_id same-1 for two different submits (items 0 and 1), so their results cannot be told apart; neither item uses them',
	);
	expect(result.items[1]!.json.status).toBeUndefined();
}, 30_000);
