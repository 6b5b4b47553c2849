/**
 * The one place an id becomes a segment of a URL path (a prompt_id, a task id, a publisher, node
 * or version id), from a parameter or from a service's answer. What cannot be one segment is
 * refused: empty, "." or ".." (which name another path, also when percent-encoded), a slash or a
 * backslash, a control character.
 */

/** The longest id the package sends in a path or passes on. */
export const MAX_ID_CHARS = 1024;

/** Why `id` cannot be one path segment, in words ("cannot be \"..\""), or undefined when it can. */
export function pathSegmentProblem(id: string): string | undefined {
	if (id === '') return 'is empty';
	// No id of the service is this long: such a text would flood every message and item it reaches.
	if (id.length > MAX_ID_CHARS) return `is ${id.length} characters long, longer than any id (${MAX_ID_CHARS})`;
	let decoded = id;
	try {
		decoded = decodeURIComponent(id);
	} catch {
		// Not percent-encoded text: it is encoded as it is.
	}
	for (const text of new Set([id, decoded])) {
		if (text === '.' || text === '..') return `cannot be "${text}" (it would name another path)`;
		if (/[/\\]/.test(text)) return 'must not contain "/" or "\\"';
		if (/[\u0000-\u001f\u007f]/.test(text)) return 'must not contain control characters';
	}
	return undefined;
}

/**
 * `id` encoded as one path segment. Parameters are checked before anything is sent, naming their
 * field; this refuses what slipped through (an id from a service's answer) rather than send it.
 */
export function pathSegment(id: string): string {
	const problem = pathSegmentProblem(id);
	if (problem) throw new Error(`The id ${JSON.stringify(id.slice(0, 80))} ${problem}, so it cannot go into a URL path`);
	return encodeURIComponent(id);
}
