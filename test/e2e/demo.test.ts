/**
 * The demo (`npm start`, test/e2e/support/start.ts) as a person runs it, in a child process whose
 * temp folder (TMPDIR) is a fresh, empty one: what it prints, the picture it saves, the link to the
 * run in n8n, and that SIGINT to the pid it prints (or SIGTERM to npm itself) stops n8n, its task
 * runner, the simulator and every helper process, and leaves the temp folder empty; with --once,
 * that it prints no link that dies with it. Each test starts a real n8n of its own
 * (15 to 35 s each here; the npm one also builds).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { imageDimensions } from '../../simulator/media/formats';
import { N8nClient } from './support/n8n-client';
import { REPO_ROOT } from './support/n8n-server';
import { processTree, stillRunning, type ProcessEntry } from './support/process-tree';
import { ensureN8nRuntime } from './support/runtime';
import { waitFor } from './support/wait';

/** Cold: npm install of n8n (about 5 min) and sqlite3's compile (about 2 min) come first. */
const SET_UP_TIMEOUT_MS = 25 * 60 * 1000;
const DEMO_TIMEOUT_MS = 5 * 60 * 1000;

let temp: string;
let outputDir: string;

beforeAll(async () => {
	await ensureN8nRuntime((line) => process.stderr.write(`[demo] ${line}\n`));
	temp = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-demo-tmp-'));
	outputDir = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-demo-output-'));
}, SET_UP_TIMEOUT_MS);

afterAll(() => {
	rmSync(temp, { recursive: true, force: true });
	rmSync(outputDir, { recursive: true, force: true });
});

interface DemoRun {
	child: ChildProcess;
	output(): string;
	/** Resolves with the exit code (or signal) of the command started. */
	exited: Promise<number | string>;
	/** Resolves once its output has ended: when every process that shares it has exited. */
	outputEnded: Promise<void>;
	/** Every process seen below the command while it ran (sampled twice a second). */
	seen: Map<number, ProcessEntry>;
}

/**
 * Starts `command` (the demo through tsx as `npm start` runs it after building, or `npm start`
 * itself) in the fresh TMPDIR, and samples the processes below it while it runs.
 */
function startDemo(command: string[]): DemoRun {
	const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temp };
	// Jest's settings would put n8n-core into its test mode; this worker's folders are its own.
	for (const key of ['NODE_ENV', 'JEST_WORKER_ID', 'N8N_USER_FOLDER', 'N8N_NODES_HOST_TEST_ROOT']) delete env[key];
	const child = spawn(command[0]!, command.slice(1), { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
	let output = '';
	child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const seen = new Map<number, ProcessEntry>();
	const sample = () => {
		// A process that is exiting reads as an empty command: keep what it ran.
		for (const entry of processTree(child.pid!)) if (entry.command || !seen.has(entry.pid)) seen.set(entry.pid, entry);
	};
	const sampler = setInterval(sample, 500);
	const exited = new Promise<number | string>((resolve) =>
		child.on('exit', (code, signal) => {
			clearInterval(sampler);
			resolve(code ?? signal ?? 'unknown');
		}),
	);
	const outputEnded = new Promise<void>((resolve) => child.on('close', () => resolve()));
	return { child, output: () => output, exited, outputEnded, seen };
}

const demo = (...args: string[]) => [
	process.execPath,
	join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'),
	'test/e2e/support/start.ts',
	...args,
];

/** Resolves once the demo says it keeps running; fails with its output when it exits first. */
async function untilRunning(run: DemoRun): Promise<string> {
	await waitFor('the demo to be running', () => /n8n keeps running/.test(run.output()) || run.child.exitCode !== null, {
		timeoutMs: DEMO_TIMEOUT_MS,
	});
	expect(run.output()).toMatch(/n8n keeps running/);
	return run.output();
}

/** The picture a "Saved:" line names: a 512×512 PNG. */
function expectSavedPicture(output: string): void {
	const saved = /^ {2}(\S+\.png) {2}\((\d+)×(\d+) PNG, /m.exec(output);
	expect(saved).not.toBeNull();
	const bytes = readFileSync(resolve(REPO_ROOT, saved![1]!));
	expect(imageDimensions(bytes)).toEqual({ width: 512, height: 512 });
}

/** After the demo's exit: no process it started runs, and its temp folder is empty. */
function expectNothingLeft(run: DemoRun): void {
	// tsx, the demo, n8n, its task runner, watchdogs: all were seen.
	const commands = [...run.seen.values()].map((entry) => entry.command);
	expect(commands).toEqual(expect.arrayContaining([expect.stringContaining('n8n/bin/n8n start'), expect.stringContaining('task-runner')]));
	expect(stillRunning(run.seen.values()).map((entry) => `${entry.pid} ${entry.command}`)).toEqual([]);
	// tsx-<uid> is tsx's own (its compile cache and IPC pipes, shared by every tsx run), not the demo's;
	// .v8flags-… is gulp's cache of Node's flags, written to the temp folder when ~/.cache is missing.
	expect(readdirSync(temp).filter((name) => !/^tsx-\d+$/.test(name) && !/^\.v8flags-.*\.json$/.test(name))).toEqual([]);
}

/** After a failed test: SIGKILL to whatever of the run still runs (afterAll removes the temp folder). */
function killLeftovers(run: DemoRun): void {
	for (const entry of stillRunning([...run.seen.values(), ...processTree(run.child.pid!)])) {
		try {
			process.kill(entry.pid, 'SIGKILL');
		} catch {
			// Gone meanwhile.
		}
	}
}

describe('npm start', () => {
	it(
		'saves a 512×512 picture, links to the run in n8n, and SIGINT to the pid it prints stops everything',
		async () => {
			const run = startDemo(demo('--output', outputDir));
			try {
				const output = await untilRunning(run);
				expectSavedPicture(output);

				// The link opens the demo's own execution: it exists, succeeded, and belongs to the workflow named.
				const link = /^Open the run in n8n: (http:\/\/127\.0\.0\.1:\d+)\/workflow\/(\w+)\/executions\/(\w+)$/m.exec(output);
				expect(link).not.toBeNull();
				const [, url, workflowId, executionId] = link!;
				const login = /^Login: +(\S+) \/ (\S+)$/m.exec(output)!;
				const client = new N8nClient(url!);
				await client.login({ email: login[1]!, password: login[2]! });
				expect((await client.getExecution(executionId!)).status).toBe('success');
				expect((await client.listExecutions(workflowId!)).map((execution) => execution.id)).toContain(executionId);

				// The pid printed is the process that handles the signal (tsx's own process is its parent).
				const pid = Number(/^pid (\d+): /m.exec(output)?.[1]);
				expect(processTree(run.child.pid!).map((entry) => entry.pid)).toContain(pid);
				expect(pid).not.toBe(run.child.pid);
				process.kill(pid, 'SIGINT');
				expect(await run.exited).toBe(130);
				expectNothingLeft(run);
				await run.outputEnded;
				expect(run.output()).toMatch(/Stopped: n8n, the simulator and their temp folders are gone\.\n$/);
			} finally {
				killLeftovers(run);
			}
		},
		DEMO_TIMEOUT_MS + 60_000,
	);

	it(
		'with --once prints the result and the saved file, and no link that died with it',
		async () => {
			const run = startDemo(demo('--once', '--output', outputDir));
			try {
				expect(await run.exited).toBe(0);
				expectNothingLeft(run);
				await run.outputEnded;
				const output = run.output();
				const result = output.slice(output.indexOf('Running examples/text-to-image.json'));
				expect(result).toMatch(/^Result of "Text to Image": 1 item\(s\)$/m);
				expectSavedPicture(result);
				expect(result).not.toMatch(/https?:\/\/|Login:|n8n log:|keeps running/);
			} finally {
				killLeftovers(run);
			}
		},
		DEMO_TIMEOUT_MS,
	);

	// `npm start` as typed, build included: npm hands SIGTERM to its script, which execs tsx (no shell in between to swallow it).
	it(
		'SIGTERM to npm itself stops everything too',
		async () => {
			const run = startDemo(['npm', 'start', '--', '--output', outputDir]);
			try {
				await untilRunning(run);
				process.kill(run.child.pid!, 'SIGTERM');
				await run.exited;
				expectNothingLeft(run);
				await run.outputEnded;
				expect(run.output()).toMatch(/Stopped: n8n, the simulator and their temp folders are gone\.\n$/);
			} finally {
				killLeftovers(run);
			}
		},
		DEMO_TIMEOUT_MS,
	);
});
