/**
 * How a "slow down" answer's wait is read and bounded: Retry-After as seconds or an HTTP date,
 * nonsense ignored, a wait never shorter than asked (jitter only lengthens it, within the bound),
 * one that cannot fit refused, and without the header the retry table's pauses, then none.
 */
import { RETRY_DELAYS_MS } from '../../../../nodes/shared/transport/retry';
import { asksToSlowDown, retryAfterMs, slowDownPlan } from '../../../../nodes/shared/transport/slow-down';

const NOW = Date.parse('2030-01-01T00:00:00Z');

test('Retry-After is read as whole seconds or an HTTP date; a past date is no wait; nonsense is no header', () => {
	expect(retryAfterMs('7', NOW)).toBe(7000);
	expect(retryAfterMs(['3'], NOW)).toBe(3000);
	expect(retryAfterMs('Tue, 01 Jan 2030 00:00:05 GMT', NOW)).toBe(5000);
	expect(retryAfterMs('Mon, 31 Dec 2029 23:59:00 GMT', NOW)).toBe(0);
	for (const nonsense of [undefined, '', '-5', '1.5', 'soon', '2030-01-01', '99999999999999', 'Tue, 01 Jan 3030 00:00:05 GMT'])
		expect(retryAfterMs(nonsense, NOW)).toBeUndefined();
});

test('a 429 is waited out on any call, a 503 only with Retry-After and only on a read; a clean-up call never waits', () => {
	expect(asksToSlowDown(429, {}, { method: 'POST' })).toBe(true);
	expect(asksToSlowDown(503, { 'retry-after': '2' }, { method: 'GET' })).toBe(true);
	expect(asksToSlowDown(503, {}, { method: 'GET' })).toBe(false);
	expect(asksToSlowDown(503, { 'retry-after': '2' }, { method: 'POST' })).toBe(false);
	expect(asksToSlowDown(429, { 'retry-after': '2' }, { method: 'POST', ignoreCancel: true })).toBe(false);
});

test('a wait is never shorter than asked, and its jitter only lengthens it as far as the bound allows', () => {
	const bounds = { readDeadline: NOW + 120_000 };
	expect(slowDownPlan(5000, 1, bounds, NOW, () => 0)).toEqual({ waitMs: 5000 });
	expect(slowDownPlan(5000, 1, bounds, NOW, () => 0.999)).toEqual({ waitMs: expect.any(Number) });
	expect((slowDownPlan(5000, 1, bounds, NOW, () => 0.999) as { waitMs: number }).waitMs).toBeGreaterThan(5000);
	expect(slowDownPlan(5000, 1, { readDeadline: NOW + 5100 }, NOW, () => 0.999)).toEqual({ waitMs: 5100 });
	// "0" does not hammer: at least the retry table's pause.
	expect(slowDownPlan(0, 1, bounds, NOW, () => 0)).toEqual({ waitMs: RETRY_DELAYS_MS[0] });
});

test('a wait beyond Max Wait or the read limit is refused, saying which bound; without Retry-After the table, then none', () => {
	expect(slowDownPlan(600_000, 1, { readDeadline: NOW + 120_000, maxWaitDeadline: NOW + 20_000 }, NOW)).toEqual({
		tooLong: { askedMs: 600_000, leftMs: 20_000, byMaxWait: true },
	});
	expect(slowDownPlan(600_000, 1, { readDeadline: NOW + 120_000 }, NOW)).toEqual({
		tooLong: { askedMs: 600_000, leftMs: 120_000, byMaxWait: false },
	});
	for (let refusal = 1; refusal <= RETRY_DELAYS_MS.length; refusal++)
		expect(slowDownPlan(undefined, refusal, { readDeadline: NOW + 120_000 }, NOW, () => 0)).toEqual({
			waitMs: RETRY_DELAYS_MS[refusal - 1],
		});
	expect(slowDownPlan(undefined, RETRY_DELAYS_MS.length + 1, { readDeadline: NOW + 120_000 }, NOW)).toBeUndefined();
	expect(slowDownPlan(undefined, 1, { readDeadline: NOW + 100 }, NOW)).toBeUndefined();
});
