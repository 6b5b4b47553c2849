import { keptValue, MusicEventLog } from '../../../../../nodes/HostMedia/helpers/music/events';

const SECRET = 'secret-token-0123456789';

/** The events of `log` as the output holds them. */
const kept = (log: MusicEventLog) => log.json().events as Array<Record<string, unknown>>;

/** `event` with the size of its line. */
const line = (event: Record<string, unknown>): [Record<string, unknown>, number] => [event, Buffer.byteLength(JSON.stringify(event))];

describe('keptValue', () => {
	it('replaces a secret before cutting, so no part of it survives at the edge', () => {
		const text = `${'x'.repeat(490)}${SECRET}`;
		expect(keptValue(text, [SECRET])).toBe(`${'x'.repeat(490)}***`);
		expect(keptValue(`${'x'.repeat(495)}${SECRET}${'y'.repeat(100)}`, [SECRET])).toMatch(
			/^x{495}\*\*\*y{2}… \[cut: 598 characters in all\]$/,
		);
	});

	it('keeps small values whole (secrets replaced) and large ones as a marker with their size', () => {
		expect(keptValue(['calm', `by ${SECRET}`], [SECRET])).toEqual(['calm', 'by ***']);
		expect(keptValue(3, [])).toBe(3);
		expect(keptValue(undefined, [])).toBeUndefined();
		const big = Array.from({ length: 1000 }, (_, i) => `tag-${i}`);
		expect(keptValue(big, [])).toEqual({ cut: 'too large to keep', size_bytes: Buffer.byteLength(JSON.stringify(big)) });
	});
});

describe('MusicEventLog', () => {
	it('keeps ordinary events as sent, with secrets replaced and decoded data as text again', () => {
		const log = new MusicEventLog([SECRET]);
		log.add(...line({ type: 'title', title: `Song ${SECRET}` }));
		log.add({ type: 'note', data: Buffer.from('hi') }, 30);
		expect(log.json()).toEqual({
			events: [
				{ type: 'title', title: 'Song ***' },
				{ type: 'note', data: Buffer.from('hi').toString('base64') },
			],
		});
	});

	it('an event over 2 KiB is kept as a marker with its type and the size of its line', () => {
		const log = new MusicEventLog([]);
		log.add({ type: 'progress', detail: 'x'.repeat(5000) }, 5030);
		log.add({ detail: 'x'.repeat(5000) }, 5020);
		expect(kept(log)).toEqual([
			{ type: 'progress', cut: 'too large to keep', size_bytes: 5030 },
			{ cut: 'too large to keep', size_bytes: 5020 },
		]);
	});

	it('an event that grows when parsed is measured as kept', () => {
		const log = new MusicEventLog([]);
		const numbers = Array.from({ length: 400 }, () => 1e20);
		// The line writes 1e20 (4 characters); kept, it is 100000000000000000000.
		log.add({ type: 'n', numbers }, 400 * 5 + 20);
		expect(kept(log)).toEqual([
			{ type: 'n', cut: 'too large to keep', size_bytes: Buffer.byteLength(JSON.stringify({ type: 'n', numbers })) },
		]);
	});

	it('keeps at most 32 KiB of events in all and at most 100, counting the rest', () => {
		const log = new MusicEventLog([]);
		for (let i = 0; i < 50; i++) log.add(...line({ type: 'note', detail: 'x'.repeat(1500) }));
		expect(JSON.stringify(kept(log)).length).toBeLessThanOrEqual(32 * 1024);
		expect(kept(log).length + Number(log.json().events_omitted)).toBe(50);

		const many = new MusicEventLog([]);
		for (let i = 0; i < 150; i++) many.add(...line({ type: 'tick' }));
		expect(many.json()).toMatchObject({ events_omitted: 50 });
		expect(kept(many)).toHaveLength(100);
	});

	it('what is kept stays a prefix of the stream: a small event after the bound is counted, not kept', () => {
		const log = new MusicEventLog([]);
		for (let i = 0; i < 30; i++) log.add(...line({ type: 'note', detail: 'x'.repeat(1500) }));
		const before = kept(log).length;
		log.add(...line({ type: 'complete' }));
		expect(kept(log)).toHaveLength(before);
		expect(log.json().events_omitted).toBe(31 - before);
	});
});
