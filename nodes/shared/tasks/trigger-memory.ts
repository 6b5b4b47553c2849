/**
 * What a trigger remembers between runs lives in the workflow's static data, which n8n saves in its
 * database with the workflow: it is bounded by count and by size, however long the keys it is given.
 */

/** The most keys a trigger keeps. */
export const REMEMBERED_KEYS = 1000;
/** And the most characters they take together (a key is an id of at most 256 characters, or a pair of them). */
export const REMEMBERED_CHARS = 128 * 1024;

/** The newest keys of `keys` (oldest first) within both bounds. */
export function newestWithin(keys: string[], limits = { count: REMEMBERED_KEYS, chars: REMEMBERED_CHARS }): string[] {
	const kept: string[] = [];
	let chars = 0;
	for (let index = keys.length - 1; index >= 0 && kept.length < limits.count; index--) {
		chars += keys[index]!.length;
		if (chars > limits.chars) break;
		kept.push(keys[index]!);
	}
	return kept.reverse();
}
