/**
 * The secrets audit of a run: is any secret of the credentials anywhere a user or a log would see
 * it, as is, URL-encoded, JSON-escaped or inside Base64? Written apart from the nodes' own redaction
 * (nodes/shared/transport/redaction.ts), so a form that redaction misses is not missed here as well: instead
 * of encoding each secret, it decodes what it reads (percent escapes, and every Base64-looking run
 * at each of its four character alignments) and looks for the secret in the decoded text.
 *
 *   const found = findSecrets(runHaystacks({ items: result.items, requests: sim.requests }), { 'API key': sim.apiKey });
 *   expect(found).toEqual([]);
 *
 * Only pass what a secret has no business in: the simulator's request log already masks the
 * credential headers and the body fields that carry a secret by design (`personal_access_token`,
 * `api_key_host_org`, `REPOHOST_TOKEN`), so its path, query and body are searched whole.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import type { LoggedRequest } from '../../simulator/shared/core';

/** A secret found: which one (by its name, never its value), where, and in which form. */
export interface SecretFinding {
	secret: string;
	/** The haystack's name, then the path inside it (`item 3 › json › error`). */
	where: string;
	form: 'as is' | 'URL-encoded' | 'JSON-escaped' | 'Base64';
}

/** Shorter Base64-looking runs cannot hold a secret worth the name, and would only cost time. */
const MIN_BASE64_RUN = 8;
const BASE64_RUN = /[A-Za-z0-9+/_-]{8,}/g;

/** `text` with its percent escapes decoded byte by byte (and `+` as a space when `plus`); undefined when it has none. */
function percentDecoded(text: string, plus: boolean): string | undefined {
	if (!/%[0-9A-Fa-f]{2}/.test(text) && !(plus && text.includes('+'))) return undefined;
	const latin1 = (plus ? text.replace(/\+/g, ' ') : text).replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
		String.fromCharCode(parseInt(hex, 16)),
	);
	return Buffer.from(latin1, 'latin1').toString('utf8');
}

/** Every Base64-looking run of `text` decoded from each of its four starting characters, one per line. */
function base64Decoded(text: string): string | undefined {
	const decoded: string[] = [];
	for (const [run] of text.matchAll(BASE64_RUN)) {
		const standard = run.replace(/-/g, '+').replace(/_/g, '/');
		// Node decodes an unpadded tail too, so a secret at the very end of the run is not cut off.
		for (let skip = 0; skip < 4 && standard.length - skip >= MIN_BASE64_RUN; skip++) {
			decoded.push(Buffer.from(standard.slice(skip), 'base64').toString('utf8'));
		}
	}
	return decoded.length > 0 ? decoded.join('\n') : undefined;
}

/**
 * What a text may hide a secret in: itself, its percent-decodings and its Base64 runs decoded.
 * Decoded once per text, then every secret is looked for in it.
 */
function readingsOf(text: string): Array<[SecretFinding['form'], string]> {
	const readings: Array<[SecretFinding['form'], string | undefined]> = [
		['as is', text],
		['URL-encoded', percentDecoded(text, false)],
		['URL-encoded', percentDecoded(text, true)],
		['Base64', base64Decoded(text)],
	];
	return readings.filter((reading): reading is [SecretFinding['form'], string] => reading[1] !== undefined);
}

/** The form `secret` takes in a text read as `readings`, if it is there. */
function formIn(text: string, readings: Array<[SecretFinding['form'], string]>, secret: string): SecretFinding['form'] | undefined {
	const found = readings.find(([, reading]) => reading.includes(secret));
	if (found) return found[0];
	// A secret with quotes, slashes or non-ASCII letters, as JSON writes it inside a string.
	const escaped = JSON.stringify(secret).slice(1, -1);
	return escaped !== secret && text.includes(escaped) ? 'JSON-escaped' : undefined;
}

/** Every string of `value` (keys included), with its path. */
function* stringsOf(value: unknown, path: string, seen = new Set<unknown>()): Generator<[string, string]> {
	if (typeof value === 'string' || Buffer.isBuffer(value)) {
		yield [path, typeof value === 'string' ? value : value.toString('latin1')];
		return;
	}
	if (typeof value !== 'object' || value === null || seen.has(value)) return;
	seen.add(value);
	for (const [key, inner] of Object.entries(value)) {
		yield [`${path} › ${key}`, key];
		yield* stringsOf(inner, `${path} › ${key}`, seen);
	}
}

/**
 * Looks for each secret in each haystack (a text, or any value whose strings and keys are all
 * searched). Empty or missing secrets are skipped. Answers one finding per secret and place.
 */
export function findSecrets(haystacks: Record<string, unknown>, secrets: Record<string, string | undefined>): SecretFinding[] {
	const wanted = Object.entries(secrets).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== '');
	const found: SecretFinding[] = [];
	for (const [name, haystack] of Object.entries(haystacks)) {
		for (const [where, text] of stringsOf(haystack, name)) {
			const readings = readingsOf(text);
			for (const [secret, value] of wanted) {
				const form = formIn(text, readings, value);
				if (form) found.push({ secret, where, form });
			}
		}
	}
	return found;
}

/**
 * The haystacks of a run: every output item (its json, error and description included, and its
 * binary metadata), the errors the node threw, and every logged request's path, query and body.
 */
export function runHaystacks(run: {
	items?: INodeExecutionData[];
	errors?: unknown[];
	requests?: LoggedRequest[];
}): Record<string, unknown> {
	const haystacks: Record<string, unknown> = {};
	run.items?.forEach((item, index) => (haystacks[`item ${index}`] = { json: item.json, binary: item.binary }));
	run.errors?.forEach((error, index) => {
		const { message, description } = (error ?? {}) as { message?: unknown; description?: unknown };
		haystacks[`error ${index}`] = { message, description };
	});
	run.requests?.forEach((request, index) => {
		haystacks[`request ${index} (${request.method} ${request.host} ${request.path})`] = {
			path: request.path,
			query: request.query,
			body: request.body,
		};
	});
	return haystacks;
}
