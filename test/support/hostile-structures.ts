/**
 * Shared parts of the structural sweep (issue 27): hostile STRUCTURES and NAMES rather than odd
 * values. Names every object already carries, used as keys and ids; nesting and size; ids that
 * would become path segments; values of the wrong type; and the oracle every surface is held to:
 * the item ends within its bound, its error is in words (never a raw JavaScript error text), no
 * secret shows, nothing is sent for refused input, memory stays bounded, and an answer that is not
 * what the spec says never yields a success. The seed is the bad-input sweep's (BAD_INPUT_SEED).
 */
import fc from 'fast-check';

import { SEED, uncaughtError } from './bad-input';
import { recordReliabilityPart } from './reliability';

export { SEED };

/** Properties per surface and operation: small, so the structural sweep stays well under a minute. */
export const STRUCTURE_RUNS = Number(process.env.STRUCTURE_RUNS ?? 12);
export const STRUCTURE_TIMEOUT_MS = 60_000 * Math.max(1, STRUCTURE_RUNS / 12);

/** Names every JavaScript object answers to: a lookup by any of them must find nothing. */
export const OWN_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', 'isPrototypeOf'];
/** Ids that cannot be one URL path segment. */
export const BAD_SEGMENTS = ['.', '..', '', '/', 'a/b', '%2e%2e', '%2E%2e', '..%2F', '\u0000', 'a\nb', '\u007f', '?x=1', '#top', '\\..'];

/** A list nested `depth` deep, built without recursion. */
export function deepList(depth: number): unknown {
	let value: unknown = [];
	for (let level = 1; level < depth; level++) value = [value];
	return value;
}
export const deepText = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** An object whose own keys are `keys` (`__proto__` included, as JSON.parse makes it). */
export const withOwnKeys = (keys: string[], value: (key: string) => unknown): Record<string, unknown> =>
	Object.fromEntries(keys.map((key) => [key, value(key)]));

export const ownName = fc.constantFrom(...OWN_NAMES);
export const badSegment = fc.constantFrom(...BAD_SEGMENTS);
export const wrongType = fc.constantFrom<unknown>([1, 2], ['6', 0], ['a', 'b'], { a: 1 }, {}, [], 42, -1, 1.5, 1e21, true, false, null);
export const depth = fc.constantFrom(101, 150, 1_000, 20_000);
/** A value nested deeper than any bound, or an object of hostile own keys. */
export const hostileShape: fc.Arbitrary<unknown> = fc.oneof(
	depth.map(deepList),
	fc.subarray(OWN_NAMES, { minLength: 1 }).map((keys) => withOwnKeys(keys, (key) => key)),
	fc.subarray(OWN_NAMES, { minLength: 1 }).map((keys) => withOwnKeys(keys, () => ({ toString: 'x', valueOf: 1 }))),
);
/** What the sweep puts where an id, a name or a text goes. */
export const hostileId: fc.Arbitrary<unknown> = fc.oneof(ownName, badSegment, wrongType, hostileShape);

/** Text a user must never see: a JavaScript failure, or a value printed as JavaScript prints it. */
const RAW_ERROR_TEXT =
	/\b(TypeError|RangeError|SyntaxError|ReferenceError)\b|Cannot read propert|Maximum call stack|is not a function|is not iterable|\[object Object\]|undefined is not/;

export interface StructureTally {
	structures_tried: number;
	refused_before_sending: number;
	uncaught_errors: number;
	raw_error_texts: number;
	secrets_found: number;
	wrong_successes: number;
	bad_path_segments_sent: number;
	overdue_items: number;
}

export const structureTally: StructureTally = {
	structures_tried: 0,
	refused_before_sending: 0,
	uncaught_errors: 0,
	raw_error_texts: 0,
	secrets_found: 0,
	wrong_successes: 0,
	bad_path_segments_sent: 0,
	overdue_items: 0,
};

/** Counts a violation of one oracle rule, for the figures; the test's own expect fails the run. */
export function violation(rule: keyof StructureTally, happened: boolean): boolean {
	if (happened) structureTally[rule]++;
	return happened;
}

/** Whether a request path holds a segment that is not one ('.', '..', empty inside, control characters), after decoding. */
function badSegmentIn(url: string): string | undefined {
	const path = url.split('?')[0]!;
	for (const raw of path.split('/').slice(1)) {
		let segment = raw;
		try {
			segment = decodeURIComponent(raw);
		} catch {
			// Not decodable: the raw text is judged.
		}
		if (segment === '.' || segment === '..' || /[\u0000-\u001f\u007f/\\]/.test(segment)) return raw;
	}
	return undefined;
}

/** What one run showed: what it threw, the words a user reads, what it output, what it sent. */
export interface Shown {
	error: unknown;
	words: string;
	output: unknown;
	sent: Array<{ method: string; url: string }>;
	secrets: string[];
}

/** The rules every run of the sweep is held to, whatever the surface; each surface adds its own. */
export function judgeShown({ error, words, output, sent, secrets }: Shown): void {
	structureTally.structures_tried++;
	const uncaught = uncaughtError(error);
	expect(violation('uncaught_errors', uncaught !== undefined) ? uncaught : 'none').toBe('none');
	expect(violation('raw_error_texts', RAW_ERROR_TEXT.test(words)) ? words : 'in words').toBe('in words');
	const shown = JSON.stringify([words, output]);
	const leaked = secrets.filter((secret) => shown.includes(secret));
	expect(violation('secrets_found', leaked.length > 0) ? leaked : []).toEqual([]);
	for (const request of sent) {
		const segment = badSegmentIn(request.url);
		expect(violation('bad_path_segments_sent', segment !== undefined) ? `${request.method} ${request.url}` : 'none').toBe('none');
	}
}

/** Adds this file's tally under hostile_structures.<part> in bench/reliability.json (RELIABILITY_FIGURES=1). */
export function recordStructureTally(part: string): void {
	const { structures_tried, refused_before_sending, ...violations } = structureTally;
	const figures = {
		structures_tried,
		...(refused_before_sending > 0 ? { refused_before_sending } : {}),
		defects_found: Object.values(violations).reduce((sum, count) => sum + count, 0),
		...violations,
	};
	recordReliabilityPart('hostile_structures', part, { ...figures, seed: SEED });
}

/** Ends `promise` with an error after `ms`: an item that never ends is a failure of its own, not a stuck test. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const deadline = new Promise<never>((_, reject) => {
		timer = setTimeout(() => {
			structureTally.overdue_items++;
			reject(new Error(`${what}: no end within ${ms} ms`));
		}, ms);
	});
	try {
		return await Promise.race([promise, deadline]);
	} finally {
		clearTimeout(timer);
	}
}
