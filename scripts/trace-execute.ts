/**
 * `npm run trace:execute`: follows one item of Host Cloud's Workflow → Execute from the node's
 * execute() to its output item, through n8n's engine against the simulator, and reports which files
 * of the package the path enters and how often it calls back into a file it had already left.
 *
 * How: every module of nodes/ and credentials/ is wrapped as it loads (Module._load): its exported
 * functions, the methods of its exported classes, and the functions a wrapped call is handed
 * (callbacks: they belong to the caller's file) or gives back (they belong to the callee's). Each
 * wrapped call runs in an AsyncLocalStorage frame that knows its file, so a call's caller is known
 * across awaits. Only calls made inside the node's execute() (its async context) are counted: socket
 * messages the runtime delivers outside it are not. Calls inside one file are not transitions.
 * Not part of `npm test`; `--json` prints the summary only.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';

const ROOT = join(__dirname, '..');
const PACKAGE = [join(ROOT, 'nodes') + sep, join(ROOT, 'credentials') + sep];

interface Call {
	from: string;
	to: string;
	name: string;
	depth: number;
	/** How the function was reached: a module's export or a class's method, or a callback or result of one. */
	kind: Kind;
	/** The cross-file call this one was made under (-1: execute() itself). */
	parent: number;
}

type Kind = 'export' | 'callback' | 'result';

interface Frame {
	file: string;
	depth: number;
	/** The cross-file call this frame is under. */
	call: number;
}

const frames = new AsyncLocalStorage<Frame>();
const calls: Call[] = [];
let tracing = false;

const wrappers = new WeakMap<object, unknown>();
const wrapped = new WeakSet<object>();
const isClass = (fn: Function) => /^class\b/.test(Function.prototype.toString.call(fn));

/** Runs a call of `file`'s function in its own frame, recording it when it crosses files. */
function enter(file: string, name: string, kind: Kind, run: () => unknown): unknown {
	const caller = frames.getStore();
	if (!caller) {
		if (!(tracing && name.endsWith('execute') && file.endsWith('.node.ts'))) return run();
		return frames.run({ file, depth: 0, call: -1 }, run);
	}
	if (caller.file === file) return frames.run({ ...caller, depth: caller.depth + 1 }, run);
	calls.push({ from: caller.file, to: file, name, depth: caller.depth + 1, kind, parent: caller.call });
	return frames.run({ file, depth: caller.depth + 1, call: calls.length - 1 }, run);
}

/** A function of `file` that records its calls; the same wrapper each time (listeners stay removable). */
function wrapFunction<T>(value: T, file: string, name: string, kind: Kind = 'export'): T {
	if (typeof value !== 'function' || wrapped.has(value) || isClass(value)) return value;
	const fn = value as unknown as (...args: unknown[]) => unknown;
	if (wrappers.has(fn)) return wrappers.get(fn) as T;
	const wrapper = function (this: unknown, ...args: unknown[]) {
		const callee = args.map((arg, index) => wrapFunction(arg, frames.getStore()?.file ?? file, `${name} callback ${index}`, 'callback'));
		return wrapFunction(
			enter(file, name, kind, () => fn.apply(this, callee)),
			file,
			`${name} result`,
			'result',
		);
	};
	Object.defineProperties(wrapper, Object.getOwnPropertyDescriptors(fn));
	wrappers.set(fn, wrapper);
	wrapped.add(wrapper);
	return wrapper as T;
}

/** A class's methods (its prototype's and static ones), wrapped in place so instances keep their class. */
function wrapClass(cls: Function, file: string): void {
	if (wrapped.has(cls)) return;
	wrapped.add(cls);
	for (const [owner, prefix] of [
		[cls.prototype, `${cls.name}.`],
		[cls, `${cls.name}.`],
	] as const) {
		for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(owner))) {
			if (key === 'constructor' || typeof descriptor.value !== 'function' || !descriptor.writable) continue;
			owner[key] = wrapFunction(descriptor.value, file, `${prefix}${key}`);
		}
	}
}

/** A module's exports as its importers see them: functions wrapped, classes' methods wrapped. */
function wrapExports(exports: Record<string, unknown>, file: string): Record<string, unknown> {
	if (wrappers.has(exports)) return wrappers.get(exports) as Record<string, unknown>;
	const out: Record<string, unknown> = {};
	for (const key of Object.keys(exports)) {
		const value = exports[key];
		if (typeof value === 'function' && isClass(value)) wrapClass(value, file);
		out[key] = typeof value === 'function' ? wrapFunction(value, file, key) : value;
	}
	wrappers.set(exports, out);
	return out;
}

function hookModules(): void {
	const loader = Module as unknown as { _load: (request: string, parent: unknown, isMain: boolean) => unknown; _resolveFilename: Function };
	const load = loader._load;
	loader._load = function (request, parent, isMain) {
		const exports = load.call(this, request, parent, isMain);
		const file = String(loader._resolveFilename(request, parent, isMain));
		if (!PACKAGE.some((folder) => file.startsWith(folder)) || typeof exports !== 'object' || exports === null) return exports;
		return wrapExports(exports as Record<string, unknown>, relative(ROOT, file));
	};
}

/** Files entered (in order), and the calls that come back into a file the path had left. */
export function summarize(trace: Call[], root: string): { files: string[]; returns: Call[] } {
	const files = [root];
	const returns: Call[] = [];
	for (const call of trace) {
		if (files.includes(call.to)) returns.push(call);
		else files.push(call.to);
	}
	return { files, returns };
}

/** The counts of one way of looking: which calls count, and whether a return is counted once per pair of files. */
function counts(trace: Call[], root: string, distinct: boolean): { files: number; returns: number } {
	const { files, returns } = summarize(trace, root);
	const pairs = new Set(returns.map((call) => `${call.from} → ${call.to}`));
	return { files: files.length, returns: distinct ? pairs.size : returns.length };
}

/** The measure by several rules, from the widest (every call, callbacks included) to the narrowest. */
function measures(trace: Call[], root: string): Record<string, { files: number; returns: number }> {
	const exportsOnly = trace.filter((call) => call.kind === 'export');
	const nodesOnly = exportsOnly.filter((call) => call.to.startsWith('nodes/') && call.from.startsWith('nodes/'));
	const callers = new Set(trace.map((call) => call.parent));
	const spine = trace.filter((_call, index) => callers.has(index));
	return {
		'calls that call into another file themselves (leaf calls left out)': counts(spine, root, false),
		'the same, a return counted once per pair of files': counts(spine, root, true),
		'every call (exports, methods, callbacks, results)': counts(trace, root, false),
		'exports and methods': counts(exportsOnly, root, false),
		'exports and methods of nodes/': counts(nodesOnly, root, false),
		'every call, a return counted once per pair of files': counts(trace, root, true),
		'exports and methods of nodes/, once per pair of files': counts(nodesOnly, root, true),
	};
}

async function main(): Promise<void> {
	const folder = mkdtempSync(join(tmpdir(), 'trace-execute-'));
	process.env.N8N_USER_FOLDER = folder;
	hookModules();
	// Loaded after the hook, so the package's modules come through it.
	const { startCloud, txt2img } = require(join(ROOT, 'test/support/cloud')) as typeof import('../test/support/cloud');
	const setup = await startCloud();
	try {
		const run = () =>
			setup.harness.runNode(
				{
					type: 'hostCloud',
					parameters: { resource: 'workflow', operation: 'execute', workflow: JSON.stringify(txt2img()), downloadFiles: false },
					credentials: { hostCloudApi: setup.credential },
				},
				[{ json: {} }],
			);
		// A first run warms what a process does once (the shared socket, loading), as a second item would find it.
		if (!process.argv.includes('--cold')) await run();
		calls.length = 0;
		tracing = true;
		const result = await run();
		tracing = false;
		if (result.status !== 'success') throw new Error(`the run did not succeed: ${JSON.stringify(result.status)}`);
		report(calls, 'nodes/HostCloud/HostCloud.node.ts');
	} finally {
		await setup.sim.close();
		rmSync(folder, { recursive: true, force: true });
	}
}

function report(trace: Call[], root: string): void {
	const table = measures(trace, root);
	if (process.argv.includes('--json')) return void console.log(JSON.stringify(table));
	console.log('Calls between files, in order (↩ = back into a file the path had left):');
	const seen = new Set([root]);
	for (const call of trace) {
		const back = seen.has(call.to);
		seen.add(call.to);
		console.log(`${'  '.repeat(Math.min(call.depth, 20))}${back ? '↩ ' : '→ '}${call.to} ${call.name}   (from ${call.from}, ${call.kind})`);
	}
	const callers = new Set(trace.map((call) => call.parent));
	const spine = summarize(
		trace.filter((_call, index) => callers.has(index)),
		root,
	).files;
	console.log('\nFiles entered, in order (* = also by a call that calls into another file itself):');
	summarize(trace, root).files.forEach((file, index) =>
		console.log(`${String(index + 1).padStart(3)}. ${spine.includes(file) ? '*' : ' '} ${file}`),
	);
	console.log(`\n${trace.length} calls between files. Files entered and returns to a file already left:`);
	for (const [rule, { files, returns }] of Object.entries(table)) console.log(`  ${rule}: ${files} files, ${returns} returns`);
}

if (require.main === module) {
	main().then(
		() => process.exit(0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
