/**
 * docs/host-cloud.md, "Files on v2": Upload Image's `asset_reference` is put into a Load Image
 * node's `image` input with Set Inputs (an expression) and Execute posts it as it is. Run as a user
 * would chain it (Upload Image → Execute, both on v2) through n8n's engine against the simulator's
 * v2 flavour; every exchange is checked against the published contract.
 */
import { startSimulator, type V2Simulator } from '../../../../simulator/server';
import { picturePng } from '../../../../simulator/shared/png';
import { EngineHarness } from '../../../support/engine';
import { txt2img } from '../../../support/cloud';
import { contractBreaches } from '../../../support/v2-contract';

const PNG = picturePng(8, 8);
const QUICK = { pollIntervalSeconds: 0.1, maxWaitMinutes: 0.5 };
/** A text-to-image graph with a Load Image node whose picture is previewed (so the server runs it). */
const withLoader = () => ({
	...txt2img(),
	'20': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
	'21': { class_type: 'PreviewImage', inputs: { images: ['20', 0] } },
});

let sim: V2Simulator;
const harness = new EngineHarness();
let credential = '';
beforeAll(async () => {
	sim = await startSimulator({ flavour: 'v2', nodeMs: 5, v2: { surface: 'cloud' } });
	credential = harness.addCredential('hostCloudV2Api', { baseUrl: sim.baseUrl, apiKey: sim.apiKey }, 'Host Cloud V2 API');
});
afterEach(() => {
	const breaches = contractBreaches(sim);
	sim.reset();
	expect(breaches).toEqual([]);
});
afterAll(async () => await sim.close());

/** Upload Image → Execute, the reference put into node 20's `image` by Set Inputs with `value`. */
async function uploadThenExecute(value: string) {
	const v2 = { apiGeneration: 'v2' };
	const credentials = { hostCloudV2Api: credential };
	return await harness.run({
		nodes: [
			{
				name: 'Input',
				type: 'harness.items',
				parameters: {
					items: JSON.stringify([
						{ json: {}, binaryBase64: { data: { data: PNG.toString('base64'), fileName: 'cat.png', mimeType: 'image/png' } } },
					]),
				},
			},
			{
				name: 'Upload',
				type: 'hostCloud',
				parameters: { ...v2, resource: 'file', operation: 'uploadImage', binaryPropertyName: 'data' },
				credentials,
			},
			{
				name: 'Execute',
				type: 'hostCloud',
				parameters: {
					...v2,
					resource: 'workflow',
					operation: 'execute',
					workflow: JSON.stringify(withLoader()),
					inputOverrides: { values: [{ nodeId: '20', inputName: 'image', value }] },
					downloadFiles: false,
					waitOptions: QUICK,
				},
				credentials,
			},
		],
		connect: [
			['Input', 'Upload'],
			['Upload', 'Execute'],
		],
	});
}

const postedImage = () => {
	const submit = sim.v2.exchanges.find((x) => x.method === 'POST' && /\/api\/v2\/jobs$/.test(x.path));
	return (submit?.body as { workflow?: Record<string, { inputs: Record<string, unknown> }> } | undefined)?.workflow?.['20']?.inputs.image;
};

test("Set Inputs takes Upload Image's asset_reference into Load Image's image input, posted as it is, and the job runs on it", async () => {
	const result = await uploadThenExecute('={{ $json.asset_reference }}');

	expect(result.error('Execute')?.message).toBeUndefined();
	const asset = result.output('Upload')[0]!.json;
	const reference = { __type: 'core/ASSET', info: { id: asset.id, file_path: 'cat.png' } };
	expect(postedImage()).toEqual(reference);
	expect(result.output('Execute')[0]!.json.status).toBe('succeeded');
});

test('the reference pasted as JSON text is posted as the same object, not as a text', async () => {
	const upload = await uploadThenExecute('={{ JSON.stringify($json.asset_reference) }}');

	expect(upload.error('Execute')?.message).toBeUndefined();
	const asset = upload.output('Upload')[0]!.json;
	expect(postedImage()).toEqual({ __type: 'core/ASSET', info: { id: asset.id, file_path: 'cat.png' } });
});

test('any other object in a text input is still refused by name, nothing submitted', async () => {
	const result = await uploadThenExecute('={{ { "id": $json.id } }}');

	expect(result.error('Execute')?.message).toMatch(
		/^Set Inputs \(entry 1\): input "image" of node "20" \(LoadImage\) needs text, and an object was given/,
	);
	expect(sim.v2.exchanges.filter((x) => /\/api\/v2\/jobs$/.test(x.path))).toHaveLength(0);
});
