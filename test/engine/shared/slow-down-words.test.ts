/**
 * A service that keeps answering "slow down" with a short Retry-After (0 or 1 s): the node waits
 * at least the retry table's pause between tries (so a "0" does not hammer), and when that pause no
 * longer fits the request's bound, the item fails saying the wait it would have made, never that
 * the service asked for a wait shorter than the time left.
 */
import { REQUEST_TIME_LIMIT } from '../../../nodes/shared/transport/transport';
import { EngineHarness } from '../../support/engine';
import { sendJson, startHostileService, type HostileService } from '../../support/hostile-service';
import { hostApiCredential, hostCloudApiCredential } from '../../support/credential-fixtures';
import { archiveItem, locator } from '../../support/registry-node';

const harness = new EngineHarness();
let service: HostileService;
let storage: HostileService;
let cloud: string;
let api: string;
let retryAfter = '0';
let storageAsks = false;

const DEFAULTS = { ...REQUEST_TIME_LIMIT };

beforeAll(async () => {
	storage = await startHostileService((_req, res) => sendJson(res, 429, { error: 'slow down' }, { 'Retry-After': retryAfter }));
	service = await startHostileService((req, res) => {
		if (req.method === 'POST' && req.url.includes('/versions'))
			return sendJson(res, 201, { node_version: { id: 'v-1', version: '1.0.0' }, signedUrl: `${storage.url}/o/archive.zip?signature=abc` });
		if (!req.url.startsWith('/api/view')) return sendJson(res, 404, {});
		if (storageAsks) return sendJson(res, 302, {}, { Location: `${storage.url}/o/out.png?signature=abc` });
		return sendJson(res, 429, { error: 'slow down' }, { 'Retry-After': retryAfter });
	});
	cloud = harness.addCredential(
		'hostCloudApi',
		hostCloudApiCredential({ apiKey: 'cloud-key-slow-words-0123456789', baseUrl: service.url }),
	);
	api = harness.addCredential(
		'hostApi',
		hostApiCredential({
			accessToken: 'access-token-slow-words-0123',
			registryUrl: service.url,
			publisherId: 'acme',
			publishingToken: 'publishing-token-slow-words-0123',
		}),
	);
});

beforeEach(() => {
	// The read's waits must end 1 s before its limit: room for the first pause (0.5 s), not the second (1.5 s).
	REQUEST_TIME_LIMIT.ms = 1000;
	REQUEST_TIME_LIMIT.readMs = 2500;
	service.seen.length = 0;
	storage.seen.length = 0;
});

afterEach(() => Object.assign(REQUEST_TIME_LIMIT, DEFAULTS));

afterAll(async () => {
	await service.close();
	await storage.close();
});

async function downloadOutput() {
	const result = await harness.runNode({
		type: 'hostCloud',
		parameters: { resource: 'file', operation: 'downloadOutput', filename: 'out.png' } as never,
		credentials: { hostCloudApi: cloud },
		continueOnFail: true,
	});
	return String(result.items[0]!.json.error);
}

/**
 * The wait the message says did not fit (the one asked, or the node's least pause when that is
 * longer), and the time it says was left: the first is always the longer.
 */
function saidWaits(message: string): { wait: number; left: number } {
	const asked = /asked to wait ([\d.]+) s/.exec(message);
	const least = /pauses at least ([\d.]+) s before another try/.exec(message);
	const left = /the ([\d.]+) s left of the time a request may take with its retries; the node did not wait$/.exec(message);
	expect(asked && left).toBeTruthy();
	return { wait: Number((least ?? asked)![1]), left: Number(left![1]) };
}

describe('a short Retry-After asked again and again', () => {
	it.each(['0', '1'])('Retry-After: %s on a read: the item says a wait longer than the time left, never a shorter one', async (value) => {
		retryAfter = value;
		storageAsks = false;
		const message = await downloadOutput();
		expect(message).toMatch(/\(HTTP 429\)/);
		const { wait, left } = saidWaits(message);
		expect(wait).toBeGreaterThan(left);
		expect(service.seen.filter((req) => req.url.startsWith('/api/view')).length).toBe(2);
	});

	it('Retry-After: 0 from signed storage: the same words', async () => {
		retryAfter = '0';
		storageAsks = true;
		const message = await downloadOutput();
		expect(message).toMatch(/\(HTTP 429\)/);
		const { wait, left } = saidWaits(message);
		expect(wait).toBeGreaterThan(left);
		expect(storage.seen).toHaveLength(2);
	});

	it('Retry-After: 0 from the storage host of an archive upload: the reason says the pause that did not fit', async () => {
		retryAfter = '0';
		const result = await harness.runNode(
			{
				type: 'hostRegistry',
				parameters: {
					resource: 'nodeVersion',
					operation: 'publish',
					publisher: locator('acme'),
					node: locator('my-node', 'id'),
					version: '1.0.0',
				} as never,
				credentials: { hostApi: api },
				continueOnFail: true,
			},
			[archiveItem()],
		);
		expect(String(result.items[0]!.json.error)).toMatch(
			/but its archive was not uploaded: the storage host answered HTTP 429 .*; it asked to wait 0 s; the node pauses at least 1\.5 s before another try, more than the [\d.]+ s left of the time the upload may take$/,
		);
		expect(storage.seen.map((request) => request.method)).toEqual(['PUT', 'PUT']);
	});
});
