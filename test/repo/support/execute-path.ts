/**
 * The path of one Host Cloud Execute item from the node's execute() to the submit request, measured:
 * every exported function of the transport module is wrapped; the first one asked to send
 * `POST …/prompt` has n8n's HTTP helper of its context wrapped while it runs, and the stack is taken
 * when the transport hands the submit to that helper (async frames included). The package's frames
 * of that stack, from execute() down to the transport's call of n8n, are the path. What the docs say
 * of it sits in `<!-- measured:execute-to-submit -->` in docs/architecture.md.
 */
import { relative } from 'node:path';

import * as transport from '../../../nodes/shared/transport/transport';
import { ROOT } from './folder-blocks';

export interface Frame {
	name: string;
	file: string;
}

const FRAME = /^\s*at (?:async )?(?:(.+?) \()?(\/[^():]+):\d+:\d+\)?$/;

/** The package's frames (nodes/ and credentials/) of a stack, outermost first. */
export function packageFrames(stack: string): Frame[] {
	return stack
		.split('\n')
		.map((line) => FRAME.exec(line))
		.filter((match): match is RegExpExecArray => match !== null)
		.map(([, name, path]) => ({ name: name ?? '<anonymous>', file: relative(ROOT, path!) }))
		.filter(({ file }) => /^(nodes|credentials)\//.test(file))
		.reverse();
}

const isSubmit = (request: unknown) =>
	typeof request === 'object' &&
	request !== null &&
	(request as { method?: string }).method === 'POST' &&
	/\/prompt(\?|$)/.test(String((request as { url?: string; path?: string }).url ?? (request as { path?: string }).path));

function stackHere(): string {
	const limit = Error.stackTraceLimit;
	Error.stackTraceLimit = Infinity;
	const stack = String(new Error().stack);
	Error.stackTraceLimit = limit;
	return stack;
}

type Helper = (...args: unknown[]) => unknown;

/**
 * While a transport function runs, n8n's HTTP helper of the context it was given is wrapped too, so
 * the stack is taken where the package hands the submit to n8n (inside the transport), not where
 * the transport was entered.
 */
function watchHelper(context: unknown, onSubmit: (stack: string) => void): () => void {
	const helpers = (context as { helpers?: Record<string, unknown> } | undefined)?.helpers;
	const original = helpers?.httpRequestWithAuthentication;
	if (!helpers || typeof original !== 'function') return () => {};
	helpers.httpRequestWithAuthentication = function (this: unknown, ...args: unknown[]) {
		if (args.some(isSubmit)) onSubmit(stackHere());
		return (original as Helper).apply(this, args);
	};
	return () => {
		helpers.httpRequestWithAuthentication = original;
	};
}

/**
 * Runs `run` with the transport's exported functions wrapped, and answers the path to the first
 * submit request they sent (empty when none was).
 */
export async function pathToSubmit(run: () => Promise<unknown>): Promise<Frame[]> {
	let stack = '';
	const exported = transport as unknown as Record<string, Helper>;
	const spies = Object.keys(exported)
		.filter((name) => typeof exported[name] === 'function' && !/^[A-Z]/.test(name))
		.map((name) => {
			const original = exported[name]!;
			return jest.spyOn(exported, name).mockImplementation(function (this: unknown, ...args) {
				if (stack || !args.some(isSubmit)) return original.apply(this, args);
				const unwatch = watchHelper(args[0], (found) => (stack ||= found));
				const answer = original.apply(this, args);
				return answer instanceof Promise ? answer.finally(unwatch) : (unwatch(), answer);
			});
		});
	try {
		await run();
	} finally {
		for (const spy of spies) spy.mockRestore();
	}
	return packageFrames(stack);
}

/** The docs' words for a measured path: its counts, then each frame by function and file. */
export function pathText(path: Frame[]): string {
	const files = new Set(path.map((frame) => frame.file));
	const frames = path.map((frame) => `\`${frame.name}\` (\`${frame.file}\`)`).join(' →\n');
	return `From n8n's call to the submit request: **${path.length} functions** of the package, in **${files.size} files**:\n${frames}.\n`;
}
