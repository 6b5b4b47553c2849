/**
 * Host Media, music, against a hostile music service (issue 18): a stream that goes silent with the
 * connection held open must end by the Idle Timeout, with a message that says how long nothing came
 * and how many takes were complete, and the connection closed; a stream that has sent "complete" is
 * not waited on further; events far larger than the real service's must not land whole in the item;
 * a take announced by its title whose audio never came is a take with a hole; a take holding more
 * than its WAV header announces is not whole, and a title naming no take renames none.
 */
import type { IDataObject } from 'n8n-workflow';

import { EngineHarness, readBinary, type RunOptions } from '../../support/engine';
import type { HarnessItem } from '../../support/items-node';
import {
	answerMusic,
	musicChunkLines,
	musicLine,
	musicTakeAudio,
	musicTitleLine,
	oversizedMusicLine,
	sendJson,
	startHostileService,
	type HostileService,
	type MusicAnswer,
	type SeenRequest,
} from '../../support/hostile-service';
import { hostApiCredential } from '../../support/credential-fixtures';

const ACCESS_TOKEN = 'music-token-0123456789-abcdef';
const MUSIC_PATH = '/proxy/music/t2m/generate';
const MUSIC = { resource: 'music', operation: 'generate', prompt: 'calm piano' };
/** Half a second of silence is enough to end a test's stream. */
const IDLE = { waitOptions: { idleTimeoutSeconds: 0.5 } };
/**
 * Where a test counts what arrived before the silence, 2 s: the headers and the first lines must reach
 * the node before the Idle Timeout, which half a second on a busy machine did not always leave room for.
 */
const IDLE_AFTER_LINES = { waitOptions: { idleTimeoutSeconds: 2 } };
const MiB = 1024 * 1024;

const harness = new EngineHarness();
let service: HostileService;
let credential: string;
/** What the service answers to each music request (set by each test). */
let answer: (req: SeenRequest) => MusicAnswer;

beforeAll(async () => {
	service = await startHostileService((req, res) => {
		if (req.method === 'POST' && req.url.split('?')[0] === MUSIC_PATH) return answerMusic(res, answer(req));
		sendJson(res, 404, { error: 'not_found' });
	});
	credential = harness.addCredential('hostApi', hostApiCredential({ accessToken: ACCESS_TOKEN, registryUrl: service.url }));
});

afterEach(() => {
	service.seen.length = 0;
});

afterAll(async () => {
	await service.close();
});

function run(
	parameters: IDataObject,
	items: HarnessItem[] = [{ json: {} }],
	options: RunOptions & { continueOnFail?: boolean; typeVersion?: number } = {},
) {
	const { continueOnFail, typeVersion, ...engineOptions } = options;
	return harness.runNode(
		{
			type: 'hostMedia',
			typeVersion,
			parameters: { ...MUSIC, ...parameters } as never,
			credentials: { hostApi: credential },
			continueOnFail,
		},
		items,
		engineOptions,
	);
}

/** Open connections at the service once they settle (the client closes its side asynchronously; up to 10 s, a hang guard). */
async function openConnectionsSettled(): Promise<number> {
	for (let i = 0; i < 500 && (await service.openConnections()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
	return await service.openConnections();
}

/** A whole take: its title and all its audio. */
const wholeTake = (streamIndex: number): string[] => [
	musicTitleLine(streamIndex),
	...musicChunkLines(streamIndex, musicTakeAudio(streamIndex)),
];

describe('a music stream that goes silent', () => {
	it('one line, then silence: the item fails after the Idle Timeout, saying so, and the connection is closed', async () => {
		answer = () => ({ lines: [musicTitleLine(0)], then: 'stall' });
		const result = await run(IDLE_AFTER_LINES);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(
			'The music stream went silent: nothing arrived for 2 seconds, so the node closed the connection. ' +
				'Complete takes: 0 of 1 (a take is complete when the audio its WAV header announces has arrived, no less and no more); audio chunks received: 0.',
		);
		expect((result.error('Node') as { description?: string }).description).toMatch(/Idle Timeout \(Seconds\)/);
		expect(await openConnectionsSettled()).toBe(0);
	}, 15_000);

	it('a service that never begins to answer fails alike, and the connection is closed', async () => {
		answer = () => ({ lines: 'no answer', then: 'stall' });
		const result = await run(IDLE);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(
			'The music stream went silent: nothing arrived for 0.5 seconds, so the node closed the connection. No take had started; audio chunks received: 0.',
		);
		expect(await openConnectionsSettled()).toBe(0);
	}, 15_000);

	it('Max Wait bounds the wait for the first byte too, when it is shorter than the Idle Timeout', async () => {
		answer = () => ({ lines: 'no answer', then: 'stall' });
		// An Idle Timeout of 30 s outlasts the test's 15: only Max Wait can end the item in time.
		const result = await run({ waitOptions: { idleTimeoutSeconds: 30, maxWaitMinutes: 0.01 } });
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(
			'The music stream went silent: nothing arrived for 0.6 seconds, so the node closed the connection. No take had started; audio chunks received: 0.',
		);
		expect(await openConnectionsSettled()).toBe(0);
	}, 15_000);

	it('a stall in the middle of the audio: the message counts the takes whose audio is whole by their WAV header', async () => {
		// Take 1 whole (4 chunks), take 2 only its first chunk; no "complete".
		const second = musicChunkLines(1, musicTakeAudio(1));
		answer = () => ({ lines: [...wholeTake(0), musicTitleLine(1), second[0]!], then: 'stall' });
		const result = await run(IDLE_AFTER_LINES);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/nothing arrived for 2 seconds/);
		expect(result.error('Node')?.message).toMatch(/Complete takes: 1 of 2 .*; audio chunks received: 5\.$/);
		expect(result.items).toHaveLength(0);
		expect(await openConnectionsSettled()).toBe(0);
	}, 15_000);

	it('audio in a format that does not announce its length is counted as such', async () => {
		const mp3ish = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(5000, 7)]);
		answer = () => ({ lines: [musicTitleLine(0), ...musicChunkLines(0, mp3ish)], then: 'stall' });
		const result = await run(IDLE_AFTER_LINES);
		expect(result.error('Node')?.message).toMatch(/Complete takes: 0 of 1 \(.*\), 1 of unknown length .*; audio chunks received: 2\.$/);
	}, 15_000);

	it('after "complete" the node stops reading: a service that holds the connection open still gives its takes, and the connection is closed', async () => {
		answer = () => ({ lines: [...wholeTake(0), ...wholeTake(1), musicLine({ type: 'complete' })], then: 'stall' });
		// The default Idle Timeout (60 s) is far beyond this test's limit: only "complete" can end the read.
		const result = await run({});
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(2);
		for (const [index, item] of result.items.entries()) {
			expect((await readBinary(item.binary!.data!)).equals(musicTakeAudio(index))).toBe(true);
		}
		expect(await openConnectionsSettled()).toBe(0);
	}, 15_000);

	it('under Continue On Fail the silent stream becomes an error item, and the next item still gets its music', async () => {
		answer = (req) =>
			req.body.includes('silent song')
				? { lines: [musicTitleLine(0)], then: 'stall' }
				: { lines: [...wholeTake(0), musicLine({ type: 'complete' })], then: 'end' };
		const result = await run(
			{ ...IDLE, prompt: '={{ $json.prompt }}' },
			[{ json: { prompt: 'silent song' } }, { json: { prompt: 'good song' } }],
			{
				continueOnFail: true,
			},
		);
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(2);
		expect(result.items[0]!.json.error).toMatch(/^The music stream went silent: nothing arrived for 0\.5 seconds/);
		expect(result.items[0]!.pairedItem).toEqual({ item: 0 });
		expect(result.items[1]!.pairedItem).toEqual({ item: 1 });
		expect((await readBinary(result.items[1]!.binary!.data!)).equals(musicTakeAudio(0))).toBe(true);
		expect(await openConnectionsSettled()).toBe(0);
	}, 15_000);

	it('cancelling the execution during the silence still ends it at once, and the connection is closed', async () => {
		answer = () => ({ lines: [musicTitleLine(0)], then: 'stall' });
		const controller = new AbortController();
		const running = run({}, [{ json: {} }], { signal: controller.signal });
		while (service.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
		await new Promise((resolve) => setTimeout(resolve, 100));
		controller.abort();
		const result = await running;
		expect(result.status).toBe('canceled');
		expect(await openConnectionsSettled()).toBe(0);
	}, 15_000);

	it('version 1 offers Idle Timeout (Seconds) among Additional Fields', async () => {
		answer = () => ({ lines: [musicTitleLine(0)], then: 'stall' });
		const result = await run({ additionalFields: { idleTimeoutSeconds: 0.5 } }, [{ json: {} }], { typeVersion: 1 });
		expect(result.error('Node')?.message).toMatch(/^The music stream went silent: nothing arrived for 0\.5 seconds/);
		expect(await openConnectionsSettled()).toBe(0);
	}, 15_000);

	it.each([0, 3601, 'soon'])('an Idle Timeout of %p is refused by name, before any request', async (value) => {
		answer = () => ({ lines: [], then: 'end' });
		const result = await run({ waitOptions: { idleTimeoutSeconds: value } });
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/^Idle Timeout \(Seconds\) must be /);
		expect(service.seen).toHaveLength(0);
	});
});

describe('a take that may have a hole', () => {
	const mp3ish = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(12_000, 7)]);
	/** A take whose format announces no length, its second chunk line lost (cut mid-line), then "complete". */
	const holed = (): MusicAnswer => {
		const chunks = musicChunkLines(0, mp3ish);
		return {
			lines: [musicTitleLine(0), chunks[0]!, chunks[1]!.slice(0, 40) + '\n', ...chunks.slice(2), musicLine({ type: 'complete' })],
			then: 'end',
		};
	};

	it('fails the item when a line was lost and the format cannot show the audio is whole: no file with a gap is passed on', async () => {
		answer = holed;
		const result = await run({}, [{ json: {} }], { continueOnFail: true });
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.binary).toBeUndefined();
		expect(result.items[0]!.json.error).toBe(
			'The music stream said it was complete, but the audio of take 1 may have a hole: 1 line of the stream could not be read, and its format announces no length to check 7907 bytes against',
		);
	});

	it('with Accept Incomplete Takes the take is passed on, marked audio_may_be_incomplete', async () => {
		answer = holed;
		const result = await run({ additionalFields: { acceptIncompleteTakes: true } });
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.json).toMatchObject({ malformed_lines: 1, audio_may_be_incomplete: true });
		expect(result.items[0]!.binary?.data).toBeDefined();
	});
});

describe('a take the stream announced whose audio never came', () => {
	/** Take 1 whole; take 2 announced by its title (or in a `titles` list), then "complete" without any of its audio. */
	const announcedOnly = (announce: string[]): MusicAnswer => ({
		lines: [...announce, ...musicChunkLines(0, musicTakeAudio(0)), musicLine({ type: 'complete' })],
		then: 'end',
	});
	const byTitle = () => announcedOnly([musicTitleLine(0), musicTitleLine(1)]);
	const byTitles = () =>
		announcedOnly([
			musicLine({
				type: 'titles',
				titles: [
					{ title: 'Take 1', stream_index: 0 },
					{ title: 'Take 2', stream_index: 1 },
				],
			}),
		]);

	it.each([
		['a title event', byTitle],
		['a titles list', byTitles],
	])('announced by %s: fails the item, no take passed on', async (_how, stream) => {
		answer = stream;
		const result = await run({}, [{ json: {} }], { continueOnFail: true });
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.binary).toBeUndefined();
		expect(result.items[0]!.json.error).toBe(
			'The music stream said it was complete, but no audio of take 2 arrived, though the stream announced that take',
		);
	});

	it('with Accept Incomplete Takes it is passed on marked audio_may_be_incomplete, beside the whole take, unmarked', async () => {
		answer = byTitle;
		const result = await run({ additionalFields: { acceptIncompleteTakes: true } });
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(2);
		const [whole, missing] = result.items;
		expect(whole!.json.audio_may_be_incomplete).toBeUndefined();
		expect((await readBinary(whole!.binary!.data!)).equals(musicTakeAudio(0))).toBe(true);
		expect(missing!.json).toMatchObject({
			stream_index: 1,
			title: 'Take 2',
			audio_bytes: 0,
			audio_chunks: 0,
			audio_may_be_incomplete: true,
		});
		expect(missing!.binary).toBeUndefined();
	});
});

describe('music takes mixed up by the stream', () => {
	const COMPLETE = musicLine({ type: 'complete' });
	/** Take 1's file and then take 2's, both under stream_index 0: the take would be two WAVs end to end. */
	const overlong = (): MusicAnswer => ({
		lines: [musicTitleLine(0), ...musicChunkLines(0, musicTakeAudio(0)), ...musicChunkLines(0, musicTakeAudio(1)), COMPLETE],
		then: 'end',
	});

	it('a take holding more audio than its WAV header announces (another take\u2019s audio appended) fails the item', async () => {
		answer = overlong;
		const take = musicTakeAudio(0).length;
		const result = await run({}, [{ json: {} }], { continueOnFail: true });
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.binary).toBeUndefined();
		expect(result.items[0]!.json.error).toBe(
			`The music stream said it was complete, but the audio of take 1 is longer than its WAV header announces: ${take + musicTakeAudio(1).length} bytes arrived for the ${take} it announces, so audio of another take may be mixed in`,
		);
	});

	it('with Accept Incomplete Takes the overlong take is passed on, marked audio_may_be_incomplete', async () => {
		answer = overlong;
		const result = await run({ additionalFields: { acceptIncompleteTakes: true } });
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.json).toMatchObject({ stream_index: 0, audio_may_be_incomplete: true });
	});

	it('a title that names no take is not put on a take the stream announced with another title', async () => {
		// Takes 2 and 3 are announced; a stray title without stream_index or copy_index comes after.
		answer = () => ({
			lines: [
				musicTitleLine(1, 'Morning'),
				musicTitleLine(2, 'Evening'),
				musicLine({ type: 'title', title: 'Stray', display_tags: [] }),
				...musicChunkLines(1, musicTakeAudio(1)),
				...musicChunkLines(2, musicTakeAudio(2)),
				COMPLETE,
			],
			then: 'end',
		});
		const result = await run({});
		expect(result.items.map((item) => [item.json.stream_index, item.json.title, item.json.audio_may_be_incomplete])).toEqual([
			[1, 'Morning', undefined],
			[2, 'Evening', undefined],
		]);
	});
});

describe('music events far larger than the real service sends', () => {
	it('twenty 2 MiB events and a 2 MiB title leave a small item: markers say what was cut, and the audio is intact', async () => {
		const hugeTitle = musicLine({
			type: 'title',
			title: 'T'.repeat(2 * MiB),
			display_tags: Array.from({ length: 100_000 }, (_, i) => `tag-${i}`),
			copy_index: { nested: 'c'.repeat(MiB) },
			prompt_index: 0,
			stream_index: 0,
		});
		const huge = Array.from({ length: 20 }, () => oversizedMusicLine('progress', 2 * MiB));
		answer = () => ({
			lines: [hugeTitle, ...huge, ...musicChunkLines(0, musicTakeAudio(0)), musicLine({ type: 'complete' })],
			then: 'end',
		});
		const result = await run({});
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(1);
		// 42 MiB of events arrived; what is kept is tens of KiB.
		expect(JSON.stringify(result.items).length).toBeLessThan(64 * 1024);
		const json = result.items[0]!.json;
		const events = json.events as IDataObject[];
		expect(events[1]).toEqual({ type: 'progress', cut: 'too large to keep', size_bytes: 2 * MiB });
		expect(events.filter((event) => event.cut !== undefined)).toHaveLength(21);
		expect(String(json.title)).toMatch(/^T{500}… \[cut: 2097152 characters in all\]$/);
		expect(JSON.stringify(json.display_tags).length).toBeLessThan(2048);
		expect(JSON.stringify(json.copy_index).length).toBeLessThan(2048);
		expect((await readBinary(result.items[0]!.binary!.data!)).equals(musicTakeAudio(0))).toBe(true);
		expect(json).toMatchObject({ audio_bytes: 16 * 1024, audio_chunks: 4, mime_type: 'audio/wav' });
	}, 30_000);

	it('a stream that names more takes than any real one fails instead of making an item for each', async () => {
		answer = () => ({
			lines: [...Array.from({ length: 1000 }, (_, i) => musicTitleLine(i)), ...wholeTake(0), musicLine({ type: 'complete' })],
			then: 'end',
		});
		const result = await run({});
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe('The music stream announced more than 32 takes');
		expect(result.items).toHaveLength(0);
	});

	it('many events of ordinary size: the kept list is bounded in total, the rest counted', async () => {
		const events = Array.from({ length: 150 }, (_, i) => oversizedMusicLine(`note-${i}`, 1500));
		answer = () => ({ lines: [...wholeTake(0), ...events, musicLine({ type: 'complete' })], then: 'end' });
		const result = await run({});
		expect(result.status).toBe('success');
		const json = result.items[0]!.json;
		const kept = json.events as IDataObject[];
		expect(JSON.stringify(kept).length).toBeLessThanOrEqual(32 * 1024);
		expect(kept.length + Number(json.events_omitted)).toBe(152);
		expect(kept.every((event) => event.cut === undefined)).toBe(true);
	});

	it('an error event with a huge message fails the item with a clipped message', async () => {
		answer = () => ({ lines: [musicLine({ type: 'error', code: 'Boom', message: 'm'.repeat(MiB) })], then: 'end' });
		const result = await run({});
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message.length).toBeLessThan(700);
		expect(result.error('Node')?.message).toMatch(
			/^The music service reported an error: m{500}… \[cut: 1048576 characters in all\] \(Boom\)$/,
		);
	});

	it('a token the service echoes in a title or an event is replaced', async () => {
		answer = () => ({
			lines: [
				musicTitleLine(0, `Song for ${ACCESS_TOKEN}`),
				musicLine({ type: 'debug', auth: `Bearer ${ACCESS_TOKEN}` }),
				...musicChunkLines(0, musicTakeAudio(0)),
				musicLine({ type: 'complete' }),
			],
			then: 'end',
		});
		const result = await run({});
		expect(result.status).toBe('success');
		expect(result.items[0]!.json.title).toBe('Song for ***');
		expect(JSON.stringify(result.items)).not.toContain(ACCESS_TOKEN.slice(0, 12));
	});
});

describe('the stream’s bounds by default', () => {
	it('Idle Timeout is 60 s and Max Wait 30 min in every version’s form, wherever the fields sit', () => {
		const type = harness.nodeTypes.getByName('n8n-nodes-host.hostMedia');
		const versions = 'nodeVersions' in type ? Object.values(type.nodeVersions) : [type];
		const defaults = new Set<string>();
		for (const version of versions) {
			for (const property of version.description.properties) {
				const shows = property.displayOptions?.show;
				if (!shows?.resource?.includes('music') || !shows.operation?.includes('generate')) continue;
				for (const option of (property.options ?? []) as Array<{ name?: string; default?: unknown }>) {
					if (option.name === 'idleTimeoutSeconds' || option.name === 'maxWaitMinutes')
						defaults.add(`${option.name}=${String(option.default)}`);
				}
			}
		}
		expect([...defaults].sort()).toEqual(['idleTimeoutSeconds=60', 'maxWaitMinutes=30']);
	});
});
