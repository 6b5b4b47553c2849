import { formatDuration, pollDelayMs } from '../../../../../nodes/HostMedia/helpers/tasks/poller';

describe('pollDelayMs', () => {
	it('starts at the interval and grows by half up to four times it', () => {
		const middle = () => 0.5;
		expect([0, 1, 2, 3, 4, 5, 10].map((attempt) => pollDelayMs(attempt, 1000, middle))).toEqual([1000, 1500, 2250, 3375, 4000, 4000, 4000]);
	});

	it('never waits more than a minute, unless the interval itself is longer', () => {
		expect(pollDelayMs(20, 30_000, () => 0.5)).toBe(60_000);
		expect(pollDelayMs(20, 120_000, () => 0.5)).toBe(120_000);
	});

	it('adds ±20 % jitter', () => {
		expect(pollDelayMs(0, 1000, () => 0)).toBe(800);
		expect(pollDelayMs(0, 1000, () => 1)).toBe(1200);
		const seen = new Set(Array.from({ length: 50 }, () => pollDelayMs(0, 1000)));
		expect(seen.size).toBeGreaterThan(1);
		expect([...seen].every((ms) => ms >= 800 && ms <= 1200)).toBe(true);
	});

	it('is at least 1 ms', () => {
		expect(pollDelayMs(0, 0.1, () => 0)).toBe(1);
	});
});

describe('formatDuration', () => {
	it.each([
		[300, '300 ms'],
		[5_000, '5 s'],
		[90_000, '90 s'],
		[30 * 60_000, '30 min'],
		[125 * 60_000, '2 h 5 min'],
	])('%d ms → %s', (ms, text) => {
		expect(formatDuration(ms)).toBe(text);
	});
});
