/**
 * Reading a V8 CPU profile (`node --cpu-prof`) of an n8n process: which part of the process's
 * main-thread time went where, within a time window (the profile covers the process's whole life).
 *
 * Each sample is charged its own interval (the time to the next sample) and attributed two ways:
 * - self: to the code of the sample's top frame, by where that code lives (this package's `dist/`,
 *   another package under node_modules, Node's internals, V8's garbage collector...);
 * - initiated: to this package when any frame of the sample's stack is the package's, so that
 *   n8n's helpers (httpRequest...), JSON and Node's internals the package calls count as its too.
 *   Work that runs later on its own stack (a response parsed in a socket callback, a promise n8n's
 *   helper resolves) cannot be traced back that way and stays n8n's or Node's.
 * - by caller: to the nearest frame up the stack that is neither Node's nor V8's, so that Node's
 *   sockets, streams and buffers count for the library that used them (pg, ioredis, n8n...).
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
	functionName: string;
	url: string;
	lineNumber: number;
}

interface ProfileNode {
	id: number;
	callFrame: CallFrame;
	children?: number[];
}

interface CpuProfile {
	nodes: ProfileNode[];
	startTime: number;
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

export interface ProfileSummary {
	/** Main-thread time in the window that was not idle, ms. */
	busyMs: number;
	idleMs: number;
	/** Self time of the package's own code, ms. */
	packageSelfMs: number;
	/** Time with a package frame anywhere on the stack, ms. */
	packageInitiatedMs: number;
	/** Self time by where the code lives, ms, largest first. */
	byOrigin: Array<{ origin: string; ms: number }>;
	/** The package's functions by self time, ms, largest first. */
	packageFunctions: Array<{ name: string; ms: number }>;
	/** Functions of any origin by self time, ms, largest first. */
	topFunctions: Array<{ name: string; origin: string; ms: number }>;
	/** What runs with a package frame on the stack, by the origin of the top frame, ms. */
	initiatedByOrigin: Array<{ origin: string; ms: number }>;
	/** Self time by the nearest origin up the stack that is not Node's or V8's, ms. */
	byCaller: Array<{ origin: string; ms: number }>;
}

/** Node's and V8's own code: their time is charged to whoever called them in `byCaller`. */
/** `byCaller` for Node's and V8's work with no library on the stack: I/O callbacks, timers, promise jobs. */
const EVENT_LOOP = "Node's event loop and I/O (no library on the stack)";
const RUNTIME_ORIGINS = new Set(['node: internals', 'node:undici (fetch, WebSocket)', '(native/V8 builtin)', '(program)', '(root)']);

/** Where a frame's code lives: this package, another package (by its name), Node, V8. */
export function originOf(frame: CallFrame, packageDist: string): string {
	const { url, functionName } = frame;
	if (url.includes(packageDist)) return 'n8n-nodes-host (this package)';
	if (!url) return functionName.startsWith('(') ? functionName : '(native/V8 builtin)';
	const inModules = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
	if (inModules) return inModules[1]!;
	if (url.includes('deps/undici')) return 'node:undici (fetch, WebSocket)';
	if (url.startsWith('node:')) return 'node: internals';
	return url;
}

/**
 * A function's name for the summary. A regular expression's frame is named by its source, and the
 * redaction's expressions spell out the credential's secrets: never written anywhere.
 */
function functionLabel({ functionName }: CallFrame): string {
	if (functionName.startsWith('RegExp:')) return 'RegExp (a regular expression; its source is not shown)';
	return functionName || '(anonymous)';
}

const sorted = (totals: Map<string, number>) =>
	[...totals.entries()].map(([origin, ms]) => ({ origin, ms: Math.round(ms * 10) / 10 })).sort((a, b) => b.ms - a.ms);

/** Summarises the samples of `file` taken between `fromUs` and `toUs` (CLOCK_MONOTONIC, µs, as process.hrtime). */
export function summariseProfile(file: string, packageDist: string, fromUs: number, toUs: number): ProfileSummary {
	const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
	const isPackage = (id: number) => byId.get(id)!.callFrame.url.includes(packageDist);
	const initiatedCache = new Map<number, boolean>();
	const initiated = (id: number): boolean => {
		const known = initiatedCache.get(id);
		if (known !== undefined) return known;
		const up = parent.get(id);
		const answer = isPackage(id) || (up !== undefined && initiated(up));
		initiatedCache.set(id, answer);
		return answer;
	};

	const callerCache = new Map<number, string>();
	const callerOf = (id: number): string => {
		const known = callerCache.get(id);
		if (known !== undefined) return known;
		const origin = originOf(byId.get(id)!.callFrame, packageDist);
		const up = parent.get(id);
		const answer = !RUNTIME_ORIGINS.has(origin) ? origin : up === undefined ? EVENT_LOOP : callerOf(up);
		callerCache.set(id, answer);
		return answer;
	};
	const callers = new Map<string, number>();
	const origins = new Map<string, number>();
	const initiatedOrigins = new Map<string, number>();
	const functions = new Map<string, { origin: string; ms: number }>();
	let at = profile.startTime;
	let idleMs = 0;
	let busyMs = 0;
	for (let index = 0; index < profile.samples.length; index++) {
		at += profile.timeDeltas[index]!;
		if (at < fromUs || at > toUs) continue;
		const ms = (profile.timeDeltas[index + 1] ?? 0) / 1000;
		const node = byId.get(profile.samples[index]!)!;
		const origin = originOf(node.callFrame, packageDist);
		if (origin === '(idle)') {
			idleMs += ms;
			continue;
		}
		busyMs += ms;
		origins.set(origin, (origins.get(origin) ?? 0) + ms);
		const caller = callerOf(node.id);
		callers.set(caller, (callers.get(caller) ?? 0) + ms);
		if (initiated(node.id)) initiatedOrigins.set(origin, (initiatedOrigins.get(origin) ?? 0) + ms);
		const { url, lineNumber } = node.callFrame;
		const name = `${functionLabel(node.callFrame)} ${url.split('/').slice(-1)[0] ?? ''}:${lineNumber + 1}`;
		const entry = functions.get(name) ?? { origin, ms: 0 };
		entry.ms += ms;
		functions.set(name, entry);
	}
	const packageOrigin = originOf({ url: packageDist, functionName: '', lineNumber: 0 }, packageDist);
	const round = (ms: number) => Math.round(ms * 10) / 10;
	const topFunctions = [...functions.entries()]
		.map(([name, { origin, ms }]) => ({ name, origin, ms: round(ms) }))
		.sort((a, b) => b.ms - a.ms);
	return {
		busyMs: round(busyMs),
		idleMs: round(idleMs),
		packageSelfMs: round(origins.get(packageOrigin) ?? 0),
		packageInitiatedMs: round([...initiatedOrigins.values()].reduce((sum, ms) => sum + ms, 0)),
		byOrigin: sorted(origins),
		packageFunctions: topFunctions.filter((fn) => fn.origin === packageOrigin).map(({ name, ms }) => ({ name, ms })),
		topFunctions: topFunctions.slice(0, 25),
		initiatedByOrigin: sorted(initiatedOrigins),
		byCaller: sorted(callers),
	};
}
