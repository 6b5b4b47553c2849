/**
 * One convention for "give me the files" in Host Cloud and Host Media: "Download Files", on by
 * default, into "Put Files in Field" (`data`, then `data_1`, `data_2`...). Host Cloud follows it
 * from node version 3; workflows saved with its versions 1 and 2 keep what they were built on
 * (off by default, fields image_0, image_1...). Each node of the saved workflows in
 * test/fixtures/saved-files runs as saved (defaults left out, as the editor stores them), with its
 * version, on two items: one job or task per item, its output paired with it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';
import type { INodeExecutionData, INodeParameters, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { HostCloud } from '../../../nodes/HostCloud/HostCloud.node';
import { HostMedia } from '../../../nodes/HostMedia/HostMedia.node';
import { readBinary } from '../../support/engine';
import { cloudForSuite } from '../../support/cloud';
import { useMediaEnv } from '../../support/media';
import { shows } from '../../support/node-parameters';

interface SavedNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: INodeParameters;
}

function savedNodes(file: string): Map<string, SavedNode> {
	const workflow = JSON.parse(readFileSync(join(__dirname, '../../fixtures/saved-files', file), 'utf8')) as { nodes: SavedNode[] };
	return new Map(workflow.nodes.filter((node) => node.type.startsWith('n8n-nodes-host.')).map((node) => [node.name, node]));
}

const TWO_ITEMS = [{ json: { n: 1 } }, { json: { n: 2 } }];

/** The binary fields of each output item, and whether each is paired with its own input. */
const binaryFields = (items: INodeExecutionData[]): string[][] => items.map((item) => Object.keys(item.binary ?? {}));
const pairing = (items: INodeExecutionData[]) => items.map((item) => item.pairedItem);

/** The "Download Files" and "Put Files in Field" a user sees in the editor, for a node version and operation. */
function fileFields(description: INodeTypeDescription, version: number, parameters: Record<string, unknown>) {
	const visible = (name: string, values: Record<string, unknown> = parameters): INodeProperties | undefined =>
		description.properties.find((property) => property.name === name && shows(description, property, values, version));
	const download = visible('downloadFiles');
	const field = visible('binaryPropertyName', { ...parameters, downloadFiles: true });
	return {
		download: download && { label: download.displayName, default: download.default },
		field: field && { label: field.displayName, default: field.default },
	};
}

describe('Host Cloud: a saved workflow of each version', () => {
	const cloud = cloudForSuite();
	const nodes = savedNodes('host-cloud.json');

	async function runSaved(name: string) {
		const node = nodes.get(name)!;
		const result = await cloud.harness.runNode(
			{ type: 'hostCloud', typeVersion: node.typeVersion, parameters: node.parameters, credentials: { hostCloudApi: cloud.credential } },
			TWO_ITEMS,
		);
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(2);
		expect(pairing(result.items)).toEqual([{ item: 0 }, { item: 1 }]);
		// Two jobs, each with the two images of its batch, listed with their URLs whatever the download setting.
		expect(new Set(result.items.map((item) => item.json.prompt_id)).size).toBe(2);
		for (const item of result.items) expect((item.json.images as unknown[]).length).toBe(2);
		return result.items;
	}

	/** Each image's binary field as the item names it, and the bytes in it are the file its URL serves. */
	async function expectImagesIn(items: INodeExecutionData[], fields: string[]): Promise<void> {
		for (const item of items) {
			const images = item.json.images as Array<{ filename: string; url: string; binary_property?: string }>;
			expect(images.map((image) => image.binary_property)).toEqual(fields);
			for (const [index, field] of fields.entries()) {
				const binary = item.binary![field]!;
				expect(binary).toMatchObject({ mimeType: 'image/png', fileName: images[index]!.filename });
				const served = await axios.get<ArrayBuffer>(images[index]!.url, { responseType: 'arraybuffer' });
				expect((await readBinary(binary)).equals(Buffer.from(served.data))).toBe(true);
			}
		}
	}

	test.each([1, 2])('version %i left as it was: Download Files is off, the item lists the URLs only', async (version) => {
		const items = await runSaved(`Version ${version}, as left`);
		expect(binaryFields(items)).toEqual([[], []]);
		expect(cloud.sim.requestsTo('GET', '/api/view')).toHaveLength(4);
		expect(cloud.sim.requests.filter((request) => request.host === 'storage')).toHaveLength(0);
	});

	test.each([1, 2])('version %i with Download Files on keeps its fields named by kind: image_0, image_1', async (version) => {
		const items = await runSaved(`Version ${version}, Download Files on`);
		expect(binaryFields(items)).toEqual([
			['image_0', 'image_1'],
			['image_0', 'image_1'],
		]);
		await expectImagesIn(items, ['image_0', 'image_1']);
	});

	test('version 3 left as it was downloads the files into data, data_1', async () => {
		const items = await runSaved('Version 3, as left');
		expect(binaryFields(items)).toEqual([
			['data', 'data_1'],
			['data', 'data_1'],
		]);
		await expectImagesIn(items, ['data', 'data_1']);
		expect(cloud.sim.counters.storageCredentialAttempts).toBe(0);
	});

	test('version 3 with Download Files off lists the URLs only', async () => {
		const items = await runSaved('Version 3, Download Files off');
		expect(binaryFields(items)).toEqual([[], []]);
		expect(cloud.sim.requests.filter((request) => request.host === 'storage')).toHaveLength(0);
	});

	test('version 3 puts the files where Put Files in Field says: picture, picture_1', async () => {
		const items = await runSaved('Version 3, files in picture');
		await expectImagesIn(items, ['picture', 'picture_1']);
		expect(binaryFields(items)).toEqual([
			['picture', 'picture_1'],
			['picture', 'picture_1'],
		]);
	});

	test('version 3 refuses to put the files in "preview" while Include Preview Image is on, before sending anything', async () => {
		const node = nodes.get('Version 3, as left')!;
		const result = await cloud.harness.runNode({
			type: 'hostCloud',
			typeVersion: 3,
			parameters: { ...node.parameters, binaryPropertyName: 'preview', additionalFields: { includePreview: true } },
			credentials: { hostCloudApi: cloud.credential },
		});
		expect(result.status).toBe('error');
		expect(result.error('Node')!.message).toMatch(/^Put Files in Field cannot be "preview" while Include Preview Image is on/);
		expect(cloud.sim.requests).toHaveLength(0);
	});
});

describe('Host Media: a saved workflow of each version', () => {
	const env = useMediaEnv();
	const nodes = savedNodes('host-media.json');

	async function runSaved(name: string) {
		const node = nodes.get(name)!;
		const result = await env.run(node.parameters as never, TWO_ITEMS, { typeVersion: node.typeVersion });
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(2);
		expect(pairing(result.items)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(new Set(result.items.map((item) => item.json.task_id)).size).toBe(2);
		for (const item of result.items) expect(item.json).toMatchObject({ status: 'succeeded', url: expect.any(String) });
		return result.items;
	}

	async function expectResultIn(items: INodeExecutionData[], field: string): Promise<void> {
		expect(binaryFields(items)).toEqual([[field], [field]]);
		for (const item of items) {
			const served = await axios.get<ArrayBuffer>(String(item.json.url), { responseType: 'arraybuffer' });
			expect((await readBinary(item.binary![field]!)).equals(Buffer.from(served.data))).toBe(true);
		}
	}

	test.each([1, 2])('version %i left as it was downloads the result into data', async (version) => {
		await expectResultIn(await runSaved(`Version ${version}, as left`), 'data');
	});

	test('version 1 with Download Files off returns the URLs only', async () => {
		const items = await runSaved('Version 1, Download Files off');
		expect(binaryFields(items)).toEqual([[], []]);
	});

	test('version 2 puts the result where Put Files in Field says', async () => {
		await expectResultIn(await runSaved('Version 2, files in picture'), 'picture');
	});
});

describe('what the editor shows', () => {
	const cloud = new HostCloud().description;
	const media = new HostMedia().description;
	const execute = { resource: 'workflow', operation: 'execute' };
	const waitForCompletion = { resource: 'workflow', operation: 'waitForCompletion' };

	test('Host Cloud adds version 3, which the editor uses for a new node', () => {
		expect(cloud).toMatchObject({ version: [1, 2, 3], defaultVersion: 3 });
	});

	test.each([
		['Execute', execute],
		['Wait for Completion', waitForCompletion],
	])('Host Cloud %s: versions 1 and 2 keep Download Files off, version 3 turns it on', (_name, operation) => {
		expect(fileFields(cloud, 1, operation)).toEqual({ download: { label: 'Download Files', default: false }, field: undefined });
		expect(fileFields(cloud, 2, operation)).toEqual({ download: { label: 'Download Files', default: false }, field: undefined });
		expect(fileFields(cloud, 3, operation)).toEqual({
			download: { label: 'Download Files', default: true },
			field: { label: 'Put Files in Field', default: 'data' },
		});
	});

	test.each([
		['Upscale', { resource: 'image', operation: 'upscale' }],
		['Get Task Status with Wait for Completion', { resource: 'video', operation: 'getTaskStatus', waitForCompletion: true }],
	])('Host Media %s: the same fields, in both versions', (_name, operation) => {
		for (const version of [1, 2]) {
			expect(fileFields(media, version, operation)).toEqual({
				download: { label: 'Download Files', default: true },
				field: { label: 'Put Files in Field', default: 'data' },
			});
		}
	});

	test('Host Media Generate Music: the same labels and default (its switch keeps the name saved workflows hold)', () => {
		const music = { resource: 'music', operation: 'generate' };
		for (const version of [1, 2]) {
			const download = media.properties.find((property) => property.name === 'downloadAudio' && shows(media, property, music, version))!;
			expect({ label: download.displayName, default: download.default }).toEqual({ label: 'Download Files', default: true });
			expect(fileFields(media, version, { ...music, downloadAudio: true }).field).toEqual({ label: 'Put Files in Field', default: 'data' });
		}
	});
});
