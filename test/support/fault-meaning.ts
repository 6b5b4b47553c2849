/**
 * The fault replay's faults of meaning (issue 43, DESIGN.md "Answers are about something"): answers
 * that are well formed and within every bound, but about something else than was asked. An id of
 * the answer swapped for another plausible one; a repeated page (the previous page, or page 1,
 * with its page field kept or changed to the one asked); a registry that ignores `page` and says
 * there are ten million pages; a music take announced by its title whose audio never comes. And
 * the job socket's faults (frames for other jobs, a socket closed at once), made on whole frames.
 */
import type { Socket } from 'node:net';

/** Where a value sits in a JSON answer: its path, and whether the key itself is meant (not the value). */
export interface Target {
	path: Array<string | number>;
	key: boolean;
	/** The value there in the recorded answer (for a key: the key name). */
	sample: unknown;
}

/** The totalPages of a registry that ignores `page`. */
export const ENDLESS_PAGES = 10_000_000;

/** Keys that name what an answer is about. */
const ID_KEY = /^(id|task_id|taskId|prompt_id|promptId)$/;
const ID_LIKE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Another id of the same form: each letter and digit moved on by one (a UUID stays a UUID, hex
 * stays hex), so nothing but its identity tells it from the one asked about.
 */
export function otherId(id: string): string {
	return id.replace(/[0-9a-z]/gi, (char) => {
		if (/[0-9]/.test(char)) return String((Number(char) + 1) % 10);
		if (/[a-f]/i.test(char) && ID_LIKE.test(id))
			return char === 'f' ? 'a' : char === 'F' ? 'A' : String.fromCharCode(char.charCodeAt(0) + 1);
		const base = char === char.toLowerCase() ? 97 : 65;
		return String.fromCharCode(base + ((char.toLowerCase().charCodeAt(0) - 97 + 1) % 26));
	});
}

/**
 * The places of an answer that say which thing it is about, and that the request named (its path,
 * query or body): an id value, or a map's key that is the id. An id the request did not name (a
 * submit's new id, a listing's entries) is not checkable by the package, and is left alone.
 */
export function identityTargets(value: unknown, asked: string, cap: number): Target[] {
	const found: Target[] = [];
	const named = (id: string) => id.length >= 3 && asked.includes(id);
	const walk = (node: unknown, path: Array<string | number>) => {
		// What an answer is about is said near its top: its own id, under `data`, or its one key.
		if (found.length >= cap || path.length > 2) return;
		if (Array.isArray(node)) return node.slice(0, 3).forEach((element, at) => walk(element, [...path, at]));
		if (node === null || typeof node !== 'object') return;
		for (const [key, child] of Object.entries(node)) {
			// A key that is the id: a map of one entry keyed by it (a job's history), or an id of the UUID form.
			const keyedById = ID_LIKE.test(key) || (path.length === 0 && Object.keys(node).length === 1);
			if (named(key) && keyedById) found.push({ path: [...path, key], key: true, sample: key });
			else if (ID_KEY.test(key) && typeof child === 'string' && named(child))
				found.push({ path: [...path, key], key: false, sample: child });
			walk(child, [...path, key]);
		}
	};
	walk(value, []);
	return found.slice(0, cap);
}

/** A request's `page` query value, when it has one. */
export function askedPage(query: string): number | undefined {
	const page = new URLSearchParams(query).get('page');
	return page !== null && /^\d+$/.test(page) ? Number(page) : undefined;
}

/** The query with `page` set to `page`. */
export function withPage(query: string, page: number): string {
	const params = new URLSearchParams(query);
	params.set('page', String(page));
	return `?${params.toString()}`;
}

/** A listing answer's text with `page` and `totalPages` set where given (undefined: not JSON, left as it is). */
export function relabelPage(text: string, fields: { page?: number; totalPages?: number }): string | undefined {
	try {
		const value = JSON.parse(text) as Record<string, unknown>;
		if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
		if (fields.page !== undefined && 'page' in value) value.page = fields.page;
		if (fields.totalPages !== undefined) value.totalPages = fields.totalPages;
		return JSON.stringify(value);
	} catch {
		return undefined;
	}
}

/**
 * A music stream whose last announced take never comes: its title line stays, its audio chunks
 * are dropped (undefined: the stream announces no take).
 */
export function withoutLastTake(text: string): string | undefined {
	const lines = text.split('\n');
	const events = lines.map((line) => {
		try {
			return JSON.parse(line) as Record<string, unknown>;
		} catch {
			return undefined;
		}
	});
	const titles = events.filter((event) => event?.type === 'title');
	const take = titles[titles.length - 1]?.stream_index;
	if (take === undefined) return undefined;
	const kept = lines.filter((_, at) => !(events[at]?.type === 'audio_chunk' && events[at]?.stream_index === take));
	return kept.length === lines.length ? undefined : kept.join('\n');
}

/** One unmasked server text frame. */
export function textFrame(text: string): Buffer {
	const payload = Buffer.from(text);
	const length = payload.length;
	const header =
		length < 126
			? Buffer.from([0x81, length])
			: length < 65_536
				? Buffer.from([0x81, 126, length >> 8, length & 0xff])
				: Buffer.concat([Buffer.from([0x81, 127]), Buffer.from(new BigUint64Array([BigInt(length)]).buffer).reverse()]);
	return Buffer.concat([header, payload]);
}

/** The frames a flood sends: `count` jobs of the same account, each executing and done with an output. */
export function floodFrames(count: number): Buffer[] {
	const frames: Buffer[] = [];
	for (let n = 0; n < count; n++) {
		const promptId = `0f100d00-0000-4000-8000-${String(n).padStart(12, '0')}`;
		frames.push(...jobFrames(promptId, `flood_${n}.png`));
	}
	return frames;
}

/** A job's last frames as the service sends them: its node ran with an output file, and it succeeded. */
export function jobFrames(promptId: string, filename: string): Buffer[] {
	const output = { images: [{ filename, subfolder: '', type: 'output' }] };
	return [
		textFrame(JSON.stringify({ type: 'executing', data: { node: '9', display_node: '9', prompt_id: promptId } })),
		textFrame(JSON.stringify({ type: 'executed', data: { node: '9', display_node: '9', output, prompt_id: promptId } })),
		textFrame(JSON.stringify({ type: 'execution_success', data: { prompt_id: promptId, timestamp: Date.now() } })),
	];
}

/**
 * Pipes the server's side of an upgraded socket to the client whole frame by whole frame (after
 * the 101 answer), and calls `atFrame(n)` after the n-th frame (0: right after the 101): what it
 * returns is written to the client there, between two whole frames.
 */
export function framedPipe(server: Socket, client: Socket, atFrame: (n: number) => Buffer[]): void {
	let pending = Buffer.alloc(0);
	let upgraded = false;
	let frames = 0;
	const inject = () => {
		for (const frame of atFrame(frames)) client.write(frame);
	};
	server.on('data', (chunk: Buffer) => {
		pending = Buffer.concat([pending, chunk]);
		if (!upgraded) {
			const end = pending.indexOf('\r\n\r\n');
			if (end < 0) return;
			client.write(pending.subarray(0, end + 4));
			pending = pending.subarray(end + 4);
			upgraded = true;
			inject();
		}
		for (;;) {
			const length = frameLength(pending);
			if (length === undefined || pending.length < length) return;
			client.write(pending.subarray(0, length));
			pending = pending.subarray(length);
			frames++;
			inject();
		}
	});
}

/** The length of the first whole frame of `data`, header included (undefined: its header is not all there). */
function frameLength(data: Buffer): number | undefined {
	if (data.length < 2) return undefined;
	const masked = (data[1]! & 0x80) !== 0 ? 4 : 0;
	const short = data[1]! & 0x7f;
	if (short < 126) return 2 + masked + short;
	if (short === 126) return data.length < 4 ? undefined : 4 + masked + data.readUInt16BE(2);
	return data.length < 10 ? undefined : 10 + masked + Number(data.readBigUInt64BE(2));
}
