/**
 * Assets' bytes in one node run are fetched at most FILE_REQUESTS_AT_ONCE at a time, as v1's files
 * are (n8n's HTTP helper stood in for, each answer's body held open a moment): a job with many
 * outputs does not open a request for each at once, and every download still completes whole.
 */
import { Readable } from 'node:stream';
import type { IExecuteFunctions } from 'n8n-workflow';

import { assetToBinary } from '../../../../../nodes/HostCloud/helpers/assets/asset-files';
import { FILE_REQUESTS_AT_ONCE } from '../../../../../nodes/HostCloud/helpers/files/output-files';

const BYTES = Buffer.from('0123456789');

function downloadingContext() {
	const count = { open: 0, most: 0, requests: 0 };
	const context = {
		getNode: () => ({ id: '1', name: 'Host Cloud', type: 'hostCloud', typeVersion: 1, position: [0, 0], parameters: {} }),
		getCredentials: async () => ({ baseUrl: 'http://127.0.0.1:9', apiKey: '' }),
		helpers: {
			httpRequestWithAuthentication: async () => {
				count.requests++;
				count.most = Math.max(count.most, ++count.open);
				async function* body() {
					// Held open until the other downloads have had their chance to start.
					await new Promise((resolve) => setTimeout(resolve, 20));
					yield BYTES;
					count.open--;
				}
				return { statusCode: 200, headers: { 'content-type': 'image/png' }, body: Readable.from(body()) };
			},
			prepareBinaryData: async (stream: AsyncIterable<Buffer>, fileName: string, mimeType: string) => {
				const parts: Buffer[] = [];
				for await (const part of stream) parts.push(part);
				return { data: Buffer.concat(parts).toString('base64'), fileName, mimeType };
			},
		},
	} as unknown as IExecuteFunctions;
	return { context, count };
}

test(`ten assets of one run are downloaded at most ${FILE_REQUESTS_AT_ONCE} at a time, each whole`, async () => {
	const { context, count } = downloadingContext();
	const assets = Array.from({ length: 10 }, (_, i) => ({
		id: `a${i}`,
		name: `out${i}.png`,
		size_bytes: BYTES.length,
		content_type: 'image/png',
	}));
	const binaries = await Promise.all(assets.map(async (asset) => await assetToBinary(context, asset, 0)));
	expect(count.requests).toBe(10);
	expect(count.most).toBe(FILE_REQUESTS_AT_ONCE);
	expect(binaries.map((binary) => [binary.fileName, Buffer.from(binary.data, 'base64').toString()])).toEqual(
		assets.map((asset) => [asset.name, '0123456789']),
	);
});
