/**
 * Execute's Input Images on v2: each image is uploaded as an asset tagged input (n8n's HTTP helper
 * stood in for), and its Load Image node's `image` input becomes the contract's AssetReference,
 * `{__type: 'core/ASSET', info: {id, file_path}}`; nothing else of the graph changes.
 */
import { Readable } from 'node:stream';
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { assetReference, uploadInputAssets } from '../../../../../nodes/HostCloud/helpers/assets/upload-asset';
import type { PreparedWorkflow } from '../../../../../nodes/HostCloud/helpers/submit/prepare-workflow';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** A context with two images on its item, whose HTTP helper mints one asset per upload and records what was sent. */
function uploadingContext() {
	const sent: IHttpRequestOptions[] = [];
	const context = {
		getNode: () => ({ id: '1', name: 'Host Cloud', type: 'hostCloud', typeVersion: 1, position: [0, 0], parameters: {} }),
		getCredentials: async () => ({ baseUrl: 'http://127.0.0.1:9', apiKey: 'v2-key-unit-0123456789' }),
		getInputData: () => [
			{
				json: {},
				binary: {
					face: { data: '', mimeType: 'image/png', fileName: 'face.png', fileExtension: 'png' },
					pose: { data: '', mimeType: 'image/png', fileName: 'pose.png', fileExtension: 'png' },
				},
			},
		],
		helpers: {
			getBinaryDataBuffer: async () => PNG,
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				sent.push(options);
				const filePath = /name="file_path"\r\n\r\n([^\r]+)/.exec((options.body as Buffer).toString('latin1'))![1];
				const asset = { id: `asset-${sent.length}`, hash: null, size_bytes: PNG.length, content_type: 'image/png', file_path: filePath };
				return {
					statusCode: 201,
					headers: { 'content-type': 'application/json' },
					body: Readable.from([Buffer.from(JSON.stringify(asset))]),
				};
			},
		},
	} as unknown as IExecuteFunctions;
	return { context, sent };
}

test('assetReference is the contract’s AssetReference; a file_path is a hint added when there is one', () => {
	expect(assetReference({ id: 'a1', file_path: 'cat.png' })).toEqual({ __type: 'core/ASSET', info: { id: 'a1', file_path: 'cat.png' } });
	expect(assetReference({ id: 'a1', file_path: null })).toEqual({ __type: 'core/ASSET', info: { id: 'a1' } });
});

test('each Input Image is uploaded as an asset tagged input and its Load Image node takes the reference', async () => {
	const { context, sent } = uploadingContext();
	const prepared = {
		graph: {
			'10': { class_type: 'LoadImage', inputs: { image: 'old.png', upload: 'image' } },
			'11': { class_type: 'LoadImage', inputs: { image: 'old2.png' } },
			'3': { class_type: 'KSampler', inputs: { seed: 1 } },
		},
		images: [
			{ binaryPropertyName: 'face', nodeId: '10' },
			{ binaryPropertyName: 'pose', nodeId: '11' },
		],
		extraData: {},
		partnerApiKey: 'auto',
	} as unknown as PreparedWorkflow;
	await uploadInputAssets(context, prepared, 0);
	expect(sent.map((options) => [options.method, options.url])).toEqual([
		['POST', 'http://127.0.0.1:9/api/v2/assets'],
		['POST', 'http://127.0.0.1:9/api/v2/assets'],
	]);
	expect(sent.every((options) => /name="tags"\r\n\r\ninput\r\n/.test((options.body as Buffer).toString('latin1')))).toBe(true);
	expect(prepared.graph['10']!.inputs).toEqual({
		image: { __type: 'core/ASSET', info: { id: 'asset-1', file_path: 'face.png' } },
		upload: 'image',
	});
	expect(prepared.graph['11']!.inputs.image).toEqual({ __type: 'core/ASSET', info: { id: 'asset-2', file_path: 'pose.png' } });
	expect(prepared.graph['3']!.inputs).toEqual({ seed: 1 });
});
