/**
 * A file download cut short is fetched again, on both servers: the job is paid for and the file is
 * still there, so a broken transfer must not fail the item (nor pass a partial file on). The
 * servers here cut the first transfer of each file half-way, then serve it whole. A file that
 * arrived whole and that n8n refuses to store is another matter: it is not fetched again.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

import { BinaryDataService, FileTooLargeError } from 'n8n-core';

import { EngineHarness, readBinary } from '../../support/engine';
import { redirectTo, startHostileService, type HostileService } from '../../support/hostile-service';
import { hostCloudApiCredential, selfHostedCredential } from '../../support/credential-fixtures';

const FILE = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64 * 1024, 7)]);

/** Serves FILE, cutting the connection half-way through the first `cuts` transfers. */
function cutThenServe(cuts: number) {
	let served = 0;
	return (res: ServerResponse) => {
		res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(FILE.length) });
		if (served++ < cuts) res.write(FILE.subarray(0, FILE.length / 2), () => res.destroy());
		else res.end(FILE);
	};
}

const harness = new EngineHarness();
const services: HostileService[] = [];

afterAll(async () => {
	for (const service of services) await service.close();
});

async function download(credential: Record<string, unknown>) {
	const id = harness.addCredential('hostCloudApi', credential as never);
	return await harness.runNode(
		{
			type: 'hostCloud',
			parameters: { resource: 'file', operation: 'downloadOutput', filename: 'result_00001_.png', subfolder: '', type: 'output' },
			credentials: { hostCloudApi: id },
			continueOnFail: true,
		},
		[{ json: {} }],
	);
}

test('from the cloud’s signed storage URL', async () => {
	const serve = cutThenServe(1);
	const storage = await startHostileService((_req, res) => serve(res));
	const cloud = await startHostileService((_req, res) => redirectTo(res, `${storage.url}/o/result_00001_.png?signature=abc`));
	services.push(storage, cloud);
	const result = await download(hostCloudApiCredential({ apiKey: 'cloud-key-0001', baseUrl: cloud.url }));
	expect(result.items[0]!.json.error).toBeUndefined();
	expect((await readBinary(Object.values(result.items[0]!.binary!)[0]!)).equals(FILE)).toBe(true);
	expect(storage.seen).toHaveLength(2);
});

test('from a self-hosted server’s /api/view', async () => {
	const serve = cutThenServe(1);
	const server = await startHostileService((_req, res) => serve(res));
	services.push(server);
	const result = await download(selfHostedCredential({ serverUrl: server.url, proxyHeaders: { values: [] } }));
	expect(result.items[0]!.json.error).toBeUndefined();
	expect((await readBinary(Object.values(result.items[0]!.binary!)[0]!)).equals(FILE)).toBe(true);
	expect(server.seen.map((request) => request.url.split('?')[0])).toEqual(['/api/view', '/api/view']);
});

test('a server that always cuts fails the item saying so, with nothing partial kept', async () => {
	const serve = cutThenServe(Number.POSITIVE_INFINITY);
	const server = await startHostileService((_req, res) => serve(res));
	services.push(server);
	const result = await download(selfHostedCredential({ serverUrl: server.url, proxyHeaders: { values: [] } }));
	expect(result.items[0]!.json.error).toMatch(
		/^The download of output file "result_00001_.png" broke off before the whole file arrived: your server closed the connection early/,
	);
	expect(result.items[0]!.binary).toBeUndefined();
	expect(server.seen.length).toBeGreaterThan(1);
}, 30_000);

// Binary data in the database (n8n's queue mode) refuses a file over its size limit once it has
// read it whole. That used to be reported as a download that "broke off" because "the storage host
// could not be reached", and the file was downloaded again, and refused again, several times.
test('a file n8n refuses to store fails the item with n8n’s reason, downloaded once', async () => {
	const storage = await startHostileService((_req, res) => {
		res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(FILE.length) });
		res.end(FILE);
	});
	const cloud = await startHostileService((_req, res) => redirectTo(res, `${storage.url}/o/result_00001_.png?signature=abc`));
	services.push(storage, cloud);
	const store = jest.spyOn(BinaryDataService.prototype, 'store').mockImplementation(async (_location, stream) => {
		let bytes = 0;
		for await (const chunk of stream as Readable) bytes += (chunk as Buffer).length;
		throw new FileTooLargeError({ fileSizeMb: bytes / 1024 / 1024, maxFileSizeMb: 0, fileId: 'refused', fileName: 'result_00001_.png' });
	});
	try {
		const result = await download(hostCloudApiCredential({ apiKey: 'cloud-key-0001', baseUrl: cloud.url }));
		expect(result.items[0]!.json.error).toMatch(
			/^Output file "result_00001_.png" .*arrived whole but n8n could not store it: Failed to write binary file "result_00001_.png" \(refused\) because its size of 0.06 MB exceeds the max size limit of 0 MB set for `database` mode/,
		);
		expect(result.items[0]!.json.error).not.toMatch(/broke off|could not be reached/);
		expect(result.items[0]!.binary).toBeUndefined();
		expect(storage.seen).toHaveLength(1);
	} finally {
		store.mockRestore();
	}
});
