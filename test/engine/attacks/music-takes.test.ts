/**
 * Attack: music streams whose lines are well formed and within every bound, but mix up the takes
 * (a proxy that merges two streams, lines that name the wrong take). Each take's item must hold the
 * audio of that take, as its WAV header announces it, and the title the stream announced for it.
 * Music Generate runs through n8n's engine against a hostile loopback music service.
 */
import { EngineHarness, readBinary } from '../../support/engine';
import {
	answerMusic,
	musicChunkLines,
	musicLine,
	musicTakeAudio,
	musicTitleLine,
	sendJson,
	startHostileService,
	type HostileService,
} from '../../support/hostile-service';
import { hostApiCredential } from '../../support/credential-fixtures';

const MUSIC_PATH = '/proxy/music/t2m/generate';
const COMPLETE = musicLine({ type: 'complete' });

const harness = new EngineHarness();
let service: HostileService;
let credential: string;
let lines: string[];

beforeAll(async () => {
	service = await startHostileService((req, res) => {
		if (req.method === 'POST' && req.url.split('?')[0] === MUSIC_PATH) return answerMusic(res, { lines, then: 'end' });
		sendJson(res, 404, { error: 'not_found' });
	});
	credential = harness.addCredential('hostApi', hostApiCredential({ accessToken: 'music-attack-token-0123456789', registryUrl: service.url }));
});

afterAll(async () => {
	await service.close();
});

const generate = () =>
	harness.runNode(
		{
			type: 'hostMedia',
			parameters: { resource: 'music', operation: 'generate', prompt: 'calm piano', waitOptions: { idleTimeoutSeconds: 2 } } as never,
			credentials: { hostApi: credential },
			continueOnFail: true,
		},
		[{ json: {} }],
	);

describe('music takes mixed up by the stream', () => {
	it('a take holding more audio than its WAV header announces (another take\u2019s audio appended) is not passed on as that take', async () => {
		const take0 = musicTakeAudio(0);
		const take1 = musicTakeAudio(1);
		// Both files arrive under stream_index 0: the take's file would be two WAVs end to end.
		lines = [musicTitleLine(0), ...musicChunkLines(0, take0), ...musicChunkLines(0, take1), COMPLETE];
		const result = await generate();
		const passed = result.items.filter((item) => item.json.error === undefined && !item.json.audio_may_be_incomplete);
		const sizes = await Promise.all(passed.map(async (item) => (item.binary?.data ? (await readBinary(item.binary.data)).length : 0)));
		// Today: one item, no error, audio_bytes = 32 KiB, a file of 32 KiB whose header says 16 KiB.
		expect(sizes.filter((size) => size > take0.length)).toEqual([]);
	});

	it('a title that names no take is not put on a take the stream announced with another title', async () => {
		// Takes 1 and 2 are announced; a stray title without stream_index or copy_index comes after.
		lines = [
			musicTitleLine(1, 'Morning'),
			musicTitleLine(2, 'Evening'),
			musicLine({ type: 'title', title: 'Stray', display_tags: [] }),
			...musicChunkLines(1, musicTakeAudio(1)),
			...musicChunkLines(2, musicTakeAudio(2)),
			COMPLETE,
		];
		const result = await generate();
		const titles = Object.fromEntries(result.items.map((item) => [String(item.json.stream_index), item.json.title]));
		// Today the stray title lands on take 2 (the map's size): "Evening" is lost and take 2 is called "Stray".
		expect(titles['1']).toBe('Morning');
		expect(titles['2']).toBe('Evening');
	});
});
