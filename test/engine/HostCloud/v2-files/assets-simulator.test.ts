/**
 * Host Cloud's File operations on v2 against the simulator's v2 flavour, run in n8n's engine: on
 * the cloud surface an asset's bytes come by a 302 from a storage host that sees no credential; on a
 * self-hosted server they come in the 200 itself, and a download cut short is resumed with Range.
 * Each test ends with every exchange checked against the published contract.
 */
import { EngineHarness, readBinary } from '../../../support/engine';
import { startFaultProxy, type FaultProxy } from '../../../support/fault-proxy';
import { contractBreaches } from '../../../support/v2-contract';
import { startSimulator, type V2Simulator } from '../../../../simulator/server';

const FILE = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 13) % 251));
const withFile = (fileName = 'input.png') => [
	{ json: {}, binaryBase64: { data: { data: FILE.toString('base64'), fileName, mimeType: 'image/png' } } },
];

describe.each(['cloud', 'self-hosted'] as const)('on the %s surface', (surface) => {
	let sim: V2Simulator;
	let proxy: FaultProxy;
	const harness = new EngineHarness();
	let credential: string;

	beforeAll(async () => {
		sim = await startSimulator({ flavour: 'v2', v2: { surface } });
		// The proxy in front of the simulator cuts an answer short when a test arms it to.
		proxy = await startFaultProxy({ api: sim.baseUrl, registry: sim.registryUrl, storage: sim.storageUrl });
		const apiKey = surface === 'cloud' ? sim.apiKey : '';
		credential = harness.addCredential('hostCloudV2Api', { baseUrl: proxy.urls.api, apiKey }, 'Host Cloud V2 API');
	});
	afterEach(() => {
		proxy.arm(undefined);
		sim.reset();
	});
	afterAll(async () => {
		await proxy.close();
		await sim.close();
	});

	function runFile(parameters: Record<string, unknown> & { operation: string }, items: unknown[] = [{ json: {} }]) {
		return harness.runNode(
			{
				type: 'hostCloud',
				parameters: { apiGeneration: 'v2', resource: 'file', ...parameters } as never,
				credentials: { hostCloudV2Api: credential },
			},
			items as never,
		);
	}

	async function uploaded(operation: 'uploadImage' | 'uploadMask' = 'uploadImage'): Promise<string> {
		const result = await runFile({ operation, binaryPropertyName: 'data' }, withFile());
		expect(result.error('Node')?.message).toBeUndefined();
		return result.items[0]!.json.id as string;
	}

	test('Upload Image and Upload Mask make assets tagged input and mask, each with its reference', async () => {
		const image = await runFile({ operation: 'uploadImage', binaryPropertyName: 'data' }, withFile());
		const mask = await runFile({ operation: 'uploadMask', binaryPropertyName: 'data' }, withFile('mask.png'));
		const [imageJson, maskJson] = [image.items[0]!.json, mask.items[0]!.json];
		expect(imageJson).toMatchObject({ size_bytes: FILE.length, content_type: 'image/png', file_path: 'input.png' });
		expect(imageJson.asset_reference).toEqual({ __type: 'core/ASSET', info: { id: imageJson.id, file_path: 'input.png' } });
		expect(sim.v2.assets.get(imageJson.id as string)?.tags).toEqual(['input']);
		expect(sim.v2.assets.get(maskJson.id as string)?.tags).toEqual(['mask']);
		expect(contractBreaches(sim)).toEqual([]);
	});

	test('Get Output URL gives a fresh link of the asset', async () => {
		const id = await uploaded();
		const result = await runFile({ operation: 'getOutputUrl', assetId: id });
		expect(result.items[0]!.json).toMatchObject({ id, size_bytes: FILE.length, content_type: 'image/png' });
		expect(result.items[0]!.json.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
		expect(contractBreaches(sim)).toEqual([]);
	});

	test('Download Output gives the bytes; the storage host never sees a credential', async () => {
		const id = await uploaded();
		const result = await runFile({ operation: 'downloadOutput', assetId: id });
		expect(result.error('Node')?.message).toBeUndefined();
		expect((await readBinary(result.items[0]!.binary!.data!)).equals(FILE)).toBe(true);
		expect(result.items[0]!.binary!.data).toMatchObject({ fileName: 'input.png', mimeType: 'image/png' });
		const fromStorage = sim.requestsTo('GET').filter((request) => request.host === 'storage');
		expect(fromStorage).toHaveLength(surface === 'cloud' ? 1 : 0);
		expect(fromStorage.every((request) => !('authorization' in request.headers) && !('x-api-key' in request.headers))).toBe(true);
		expect(sim.counters.storageCredentialAttempts).toBe(0);
		expect(contractBreaches(sim)).toEqual([]);
	});

	if (surface === 'self-hosted') {
		test('a download cut short is resumed with Range where it stopped, the whole file kept', async () => {
			const id = await uploaded();
			proxy.arm({ request: `GET /api/v2/assets/${id}/content`, fault: { kind: 'cut-body' } });
			const result = await runFile({ operation: 'downloadOutput', assetId: id });
			expect(result.error('Node')?.message).toBeUndefined();
			expect((await readBinary(result.items[0]!.binary!.data!)).equals(FILE)).toBe(true);
			const content = sim.requestsTo('GET', `/api/v2/assets/${id}/content`);
			expect(content).toHaveLength(2);
			expect(content[0]!.headers.range).toBeUndefined();
			expect(content[1]!.headers.range).toMatch(/^bytes=[1-9]\d*-$/);
			expect(content[1]!.status).toBe(206);
			expect(contractBreaches(sim)).toEqual([]);
		});
	}
});
