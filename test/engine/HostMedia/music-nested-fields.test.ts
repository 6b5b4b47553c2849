/**
 * Host Media, music: an audio chunk line that also holds a nested object with a field named
 * `data` before the chunk's own (a service that adds details to its events). The chunk's audio is
 * its own `data`, whatever the line holds beside it: the take passes whole, byte for byte.
 */
import { EngineHarness, readBinary } from '../../support/engine';
import { answerMusic, musicLine, musicTakeAudio, sendJson, startHostileService, type HostileService } from '../../support/hostile-service';
import { hostApiCredential } from '../../support/credential-fixtures';

const harness = new EngineHarness();
let service: HostileService;
let credential: string;
const audio = musicTakeAudio(0, 8 * 1024);
/** What each chunk line holds before its own `data`. */
let beside = '';

/** The take's chunk lines, 4 KiB of audio each, with `beside` written before the chunk's own `data`. */
function chunkLines(): string[] {
	const lines: string[] = [];
	for (let at = 0; at < audio.length; at += 4096) {
		const data = audio.subarray(at, at + 4096).toString('base64');
		lines.push(`{"type":"audio_chunk",${beside}"stream_index":0,"data":"${data}"}\n`);
	}
	return lines;
}

beforeAll(async () => {
	service = await startHostileService((req, res) => {
		if (req.method !== 'POST') return sendJson(res, 404, {});
		answerMusic(res, { lines: [...chunkLines(), musicLine({ type: 'complete' })], then: 'end' });
	});
	credential = harness.addCredential(
		'hostApi',
		hostApiCredential({ accessToken: 'music-token-nested-0123456789', registryUrl: service.url }),
	);
});

afterAll(async () => await service.close());

describe("a chunk's audio is its own `data`", () => {
	it.each([
		['a nested object with a `data` of its own', '"meta":{"data":"AAAA"},'],
		['a nested object with a `data` that is no Base64', '"usage":{"data":"tokens: 12"},'],
	])('%s: the take passes whole, byte for byte', async (_name, nested) => {
		beside = nested;
		const result = await harness.runNode(
			{
				type: 'hostMedia',
				parameters: { resource: 'music', operation: 'generate', prompt: 'calm piano' } as never,
				credentials: { hostApi: credential },
				continueOnFail: true,
			},
			[{ json: {} }],
		);
		const item = result.items[0]!;
		expect(item.json).toMatchObject({ audio_bytes: audio.length, mime_type: 'audio/wav', malformed_lines: 0 });
		expect(item.json.audio_may_be_incomplete).toBeUndefined();
		expect((await readBinary(Object.values(item.binary ?? {})[0]!)).equals(audio)).toBe(true);
	});
});
