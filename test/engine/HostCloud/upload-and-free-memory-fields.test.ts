/**
 * The request-body fields of Upload Image, Upload Mask and Free Memory, as an expression can give
 * them: spaces around a type or subfolder are not part of it, a blank switch is refused (never
 * taken as its default, least of all Free Memory's), and a File Name is a text (a number is one,
 * a list or object is refused by name), all before anything is sent.
 */
import * as multipart from '../../../nodes/shared/transport/multipart';
import { cloudForSuite, TINY_PNG as PNG } from '../../support/cloud';

const cloud = cloudForSuite();
const server = cloudForSuite({ flavour: 'self-hosted' });

type Item = { json: Record<string, unknown>; binaryBase64?: Record<string, { data: string; fileName?: string; mimeType?: string }> };
const withImage = (name = 'cat.png'): Item => ({
	json: {},
	binaryBase64: { data: { data: PNG.toString('base64'), fileName: name, mimeType: 'image/png' } },
});

function run(operation: string, parameters: Record<string, unknown>, items: Item[] = [withImage()], setup = cloud) {
	return setup.harness.runNode(
		{
			type: 'hostCloud',
			parameters: { resource: operation === 'freeMemory' ? 'server' : 'file', operation, ...parameters } as never,
			credentials: { hostCloudApi: setup.credential },
		},
		items,
	);
}

/** The multipart fields and file name of every upload the node built. */
function sentUploads() {
	const spy = jest.spyOn(multipart, 'multipartBody');
	return () =>
		spy.mock.calls.map(([fields, files]) => ({
			fields: fields as Record<string, string>,
			fileName: (files as Array<{ fileName: string }>)[0]!.fileName,
		}));
}

afterEach(() => jest.restoreAllMocks());

async function uploadedImageName(): Promise<string> {
	const image = await run('uploadImage', { binaryPropertyName: 'data' });
	return image.items[0]!.json.name as string;
}

describe('Upload Image / Upload Mask', () => {
	test('Type from an expression with spaces around it (" output ") is taken, trimmed', async () => {
		const sent = sentUploads();
		const result = await run('uploadImage', { binaryPropertyName: 'data', additionalFields: { type: '={{ " output " }}' } });
		expect(result.error('Node')?.message).toBeUndefined();
		expect(sent()[0]!.fields.type).toBe('output');
	});

	test('Original Image Type with spaces around it is taken, trimmed', async () => {
		const name = await uploadedImageName();
		const sent = sentUploads();
		const result = await run('uploadMask', {
			binaryPropertyName: 'data',
			originalFilename: name,
			additionalFields: { originalType: '={{ "input " }}' },
		});
		expect(result.error('Node')?.message).toBeUndefined();
		expect(JSON.parse(sent()[0]!.fields.original_ref!)).toMatchObject({ type: 'input' });
	});

	test('Original Image Subfolder is sent trimmed', async () => {
		const name = await uploadedImageName();
		const sent = sentUploads();
		await run('uploadMask', { binaryPropertyName: 'data', originalFilename: name, additionalFields: { originalSubfolder: ' masks ' } });
		expect(JSON.parse(sent()[0]!.fields.original_ref!)).toMatchObject({ subfolder: 'masks' });
	});

	test('Upload Mask Subfolder is sent trimmed', async () => {
		const name = await uploadedImageName();
		const sent = sentUploads();
		await run('uploadMask', { binaryPropertyName: 'data', originalFilename: name, additionalFields: { subfolder: ' masks ' } });
		expect(sent()[0]!.fields.subfolder).toBe('masks');
	});

	test('File Name from an expression giving a number is that name', async () => {
		const sent = sentUploads();
		const result = await run('uploadImage', { binaryPropertyName: 'data', additionalFields: { fileName: '={{ 42 }}' } });
		expect(result.status).toBe('success');
		expect(sent()[0]!.fileName).toBe('42');
	});

	test('File Name from an expression giving an object is refused by name, nothing is sent', async () => {
		const result = await run('uploadImage', { binaryPropertyName: 'data', additionalFields: { fileName: '={{ { a: 1 } }}' } });
		expect(result.error('Node')?.message).toBe('File Name must be text (got "{"a":1}")');
		expect(cloud.sim.requests).toHaveLength(0);
	});

	test('Overwrite from an expression giving "" is refused', async () => {
		const result = await run('uploadImage', { binaryPropertyName: 'data', additionalFields: { overwrite: '={{ "" }}' } });
		expect(result.error('Node')?.message).toBe('Overwrite must be true or false (got "")');
		expect(cloud.sim.requests).toHaveLength(0);
	});
});

describe('Free Memory', () => {
	test.each([
		['""', 'Unload Models (unload_models) must be true or false (got "")'],
		['null', 'Unload Models (unload_models) must be true or false (got "null")'],
	])('Unload Models from an expression giving %s is refused, nothing is sent', async (given, message) => {
		const result = await run('freeMemory', { unloadModels: `={{ ${given} }}`, freeMemory: false }, [{ json: {} }], server);
		expect(result.error('Node')?.message).toBe(message);
		expect(server.sim.requestsTo('POST', '/api/free')).toHaveLength(0);
	});
});
