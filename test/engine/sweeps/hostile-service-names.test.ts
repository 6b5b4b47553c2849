/**
 * Defects the structural sweep (hostile-structures-service.test.ts) found in what the service
 * sends, fixed at their shared mechanism, each run through n8n's engine against hostile services on
 * loopback:
 * - redaction copied an answer's keys by assignment, so a key `__proto__` became the copy's
 *   prototype: the answer was then refused as "a object ([object Object])", and what sat under
 *   the key could be read as the answer's own fields;
 * - an `executed` message naming node `__proto__`, or an output key `__proto__`, lost its files;
 * - a music chunk whose stream_index is not a whole number was added to the first take by guess.
 */
import type { ServerResponse } from 'node:http';

import { EngineHarness, readBinary } from '../../support/engine';
import { executeTxt2img } from '../../support/cloud';
import * as hostile from '../../support/hostile-service';
import { hostApiCredential, hostCloudApiCredential } from '../../support/credential-fixtures';

const harness = new EngineHarness();

describe('an answer with a key every object carries', () => {
	let text = '{}';
	let service: hostile.HostileService;
	let credential: string;
	beforeAll(async () => {
		service = await hostile.startHostileService((_req, res: ServerResponse) => {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(text);
		});
		credential = harness.addCredential(
			'hostCloudApi',
			hostCloudApiCredential({ apiKey: 'cloud-key-service-names-0123', baseUrl: service.url }),
		);
	});
	afterAll(async () => await service.close());

	it('is read as the object it is: a status hidden under "__proto__" is no status', async () => {
		text = '{"__proto__": {"status": "completed"}}';
		const result = await harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'getStatus', promptId: 'p-1' } as never,
			credentials: { hostCloudApi: credential },
			continueOnFail: true,
		});
		expect(result.items[0]!.json.status).toBeUndefined();
		expect(result.items[0]!.json.error).toBe("The service's answer to reading the status of job p-1 has no status (it held: __proto__)");
	});
});

describe('Host Cloud outputs under names every object carries', () => {
	let storage: hostile.HostileService;
	let cloud: hostile.HostileService;
	let credential: string;
	let frames: (promptId: string) => string[] = () => [];
	beforeAll(async () => {
		storage = await hostile.startRecordingStorage();
		cloud = await hostile.startHostileCloud({
			storageUrl: storage.url,
			output: () => ({ images: [{ filename: 'a.png', subfolder: '', type: 'output' }] }),
			frames: (promptId) => frames(promptId),
		});
		credential = harness.addCredential(
			'hostCloudApi',
			hostCloudApiCredential({ apiKey: 'cloud-key-service-names-4567', baseUrl: cloud.url }),
		);
	});
	afterAll(async () => {
		await cloud.close();
		await storage.close();
	});
	const executed = (promptId: string, node: string, output: string) =>
		`{"type":"executed","data":{"prompt_id":"${promptId}","node":"${node}","output":${output}}}`;
	const B_PNG = '[{"filename":"b.png","subfolder":"","type":"output"}]';

	it.each([
		['a node named "__proto__"', (promptId: string) => executed(promptId, '__proto__', `{"images":${B_PNG}}`)],
		['an output key "__proto__"', (promptId: string) => executed(promptId, '10', `{"__proto__":${B_PNG}}`)],
	])('%s keeps its files', async (_what, message) => {
		frames = (promptId) => [message(promptId)];
		const result = await harness.runNode({
			type: 'hostCloud',
			parameters: executeTxt2img() as never,
			credentials: { hostCloudApi: credential },
		});
		expect(result.status).toBe('success');
		const images = (result.items[0]!.json.images as Array<{ filename: string }>).map((image) => image.filename);
		expect(images.sort()).toEqual(['a.png', 'b.png']);
	});
});

describe('a music chunk that does not name its take', () => {
	let service: hostile.HostileService;
	let credential: string;
	let answer: hostile.MusicAnswer = { lines: [], then: 'end' };
	beforeAll(async () => {
		service = await hostile.startHostileService((_req, res) => hostile.answerMusic(res, answer));
		credential = harness.addCredential(
			'hostApi',
			hostApiCredential({ accessToken: 'music-token-service-names-0123', registryUrl: service.url }),
		);
	});
	afterAll(async () => await service.close());

	it.each(['0', '__proto__', 1.5, null])('(stream_index %p) is counted unreadable, never added to a take by guess', async (index) => {
		const audio = hostile.musicTakeAudio(0);
		const stray = hostile.musicLine({ type: 'audio_chunk', stream_index: index, data: Buffer.from('stray bytes').toString('base64') });
		answer = {
			lines: [hostile.musicTitleLine(0), ...hostile.musicChunkLines(0, audio), stray, hostile.musicLine({ type: 'complete' })],
			then: 'end',
		};
		const result = await harness.runNode({
			type: 'hostMedia',
			parameters: { resource: 'music', operation: 'generate', prompt: 'calm piano' } as never,
			credentials: { hostApi: credential },
		});
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.json.malformed_lines).toBe(1);
		expect((await readBinary(result.items[0]!.binary!.data!)).equals(audio)).toBe(true);
	});
});
