/**
 * The one bounded JSON reader. Every JSON the package reads from outside (the service's REST
 * answers, socket messages, stream lines and notifications; workflows and JSON pasted by the user)
 * is checked here for size and nesting depth before it is parsed or walked. V8 parses deep JSON
 * without complaint, but everything that walks the result afterwards (redaction, n8n saving the
 * item) recurses, so a 100,000-deep list ends in "Maximum call stack size exceeded" far from its
 * cause. A value over a bound is refused with words that name the bound, never parsed.
 */

export interface JsonLimits {
	/** Longest text, in characters (a parsed value: its strings, keys and entries, counted alike). */
	maxChars: number;
	/** Deepest nesting of lists and objects. */
	maxDepth: number;
}

const MiB = 1024 * 1024;

/** Far deeper than any workflow, answer or message the service or the editor makes (they stay under 20). */
export const MAX_JSON_DEPTH = 100;

export const JSON_LIMITS = {
	/** A REST answer: node definitions of a large server run to tens of MiB. */
	answer: { maxChars: 64 * MiB, maxDepth: MAX_JSON_DEPTH },
	/** A socket message, a stream event, a notification, a preview header. */
	message: { maxChars: 16 * MiB, maxDepth: MAX_JSON_DEPTH },
	/** A workflow or JSON parameter given by the user. */
	pasted: { maxChars: 16 * MiB, maxDepth: MAX_JSON_DEPTH },
} satisfies Record<string, JsonLimits>;

/** The size of `chars` characters in words a user reads. */
export function readableSize(chars: number): string {
	return chars >= MiB
		? `${Math.round((chars / MiB) * 10) / 10} MiB`
		: chars >= 1024
			? `${Math.round(chars / 1024)} KiB`
			: `${chars} characters`;
}

const tooDeep = (limits: JsonLimits) => `is nested more than ${limits.maxDepth} levels deep`;
const tooLarge = (limits: JsonLimits, size?: number) =>
	`is larger than ${readableSize(limits.maxChars)}${size === undefined ? '' : ` (it has ${readableSize(size)})`}`;

/** What is over a bound in a JSON text ("is nested more than 100 levels deep"), found in one pass without parsing; undefined when within. */
export function jsonTextProblem(text: string, limits: JsonLimits): string | undefined {
	if (text.length > limits.maxChars) return tooLarge(limits, text.length);
	// No depth bound (the caller checks the parsed value's, if it walks it): no pass over the text.
	if (limits.maxDepth === Number.POSITIVE_INFINITY) return undefined;
	let depth = 0;
	let inString = false;
	for (let at = 0; at < text.length; at++) {
		const code = text.charCodeAt(at);
		if (inString) {
			if (code === 0x5c) at++;
			else if (code === 0x22) inString = false;
		} else if (code === 0x22) inString = true;
		else if (code === 0x5b || code === 0x7b) {
			if (++depth > limits.maxDepth) return tooDeep(limits);
		} else if (code === 0x5d || code === 0x7d) depth--;
	}
	return undefined;
}

/** A JSON text read within bounds: its value, or what is wrong with it (`bound` when over a bound rather than malformed). */
export type JsonReading = { value: unknown } | { problem: string; bound: boolean };

/** Parses `text` after checking its bounds. Never throws. */
export function readJson(text: string, limits: JsonLimits): JsonReading {
	const problem = jsonTextProblem(text, limits);
	if (problem) return { problem, bound: true };
	try {
		return { value: JSON.parse(text) as unknown };
	} catch (error) {
		// Only where: the engine's message quotes the text, which may hold a secret the service echoed.
		const position = /position (\d+)/.exec((error as Error).message)?.[1];
		return { problem: `is not valid JSON${position ? ` (at character ${position})` : ''}`, bound: false };
	}
}

/**
 * What is over a bound in a value already parsed by someone else (n8n parses a webhook's body and
 * evaluates expressions into objects), found without recursion; undefined when within. Buffers and
 * other non-plain values count as one entry.
 */
export function jsonValueProblem(value: unknown, limits: JsonLimits): string | undefined {
	const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
	let size = 0;
	while (stack.length > 0) {
		const { value: current, depth } = stack.pop()!;
		size += typeof current === 'string' ? current.length + 2 : 8;
		if (size > limits.maxChars) return tooLarge(limits);
		if (current === null || typeof current !== 'object' || ArrayBuffer.isView(current)) continue;
		if (depth + 1 > limits.maxDepth) return tooDeep(limits);
		if (Array.isArray(current)) {
			for (const entry of current as unknown[]) stack.push({ value: entry, depth: depth + 1 });
			continue;
		}
		for (const [key, entry] of Object.entries(current)) {
			size += key.length + 3;
			stack.push({ value: entry, depth: depth + 1 });
		}
	}
	return undefined;
}
