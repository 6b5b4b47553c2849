/**
 * Jest's node environment with a quiet console: what code under test logs (n8n-core's logger,
 * mostly) is kept per test and printed only when that test (or a hook) fails, so a passing run shows
 * the results and nothing between them.
 *
 * Where the suite's time goes, per test file (docs/development.md, "The suite's time"):
 * TEST_CPU_LOG=file appends one line per test file (cpu-log.js): CPU seconds (its worker's user+sys, plus the
 * child processes it started and waited for), the worker's pid, the worker's heap after the file
 * (MiB), wall seconds, and the file's path. TEST_CPU_PROFILE=folder writes a V8 CPU profile of each
 * test file there (`<file>.<pid>.cpuprofile`, for Chrome's DevTools).
 *
 * A worker's heap after a file is mostly garbage (each engine file loads n8n into a registry of its
 * own), and Jest replaces a worker whose heap is over `workerIdleMemoryLimit` without collecting it
 * first: a fresh worker compiles n8n again, 2 to 4 CPU-s. So a worker over three quarters of the
 * limit is collected before Jest looks (0.2 to 0.8 s, counted in no file's CPU), and only one still
 * over the limit after that is replaced. The file that just ended is still held by Jest at that
 * moment: what the collection frees is the files before it.
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { basename, join, relative } = require('node:path');
const { format } = require('node:util');
const { setFlagsFromString } = require('node:v8');
const { runInNewContext } = require('node:vm');
const { TestEnvironment } = require('jest-environment-node');

const { appendCpuLine } = require('./cpu-log');

require('./worker-exit');

const METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'];

class QuietEnvironment extends TestEnvironment {
	constructor(config, context) {
		super(config, context);
		this.lines = [];
		this.testPath = context.testPath;
		this.memoryLimit = config.globalConfig.workerIdleMemoryLimit;
		if (process.env.TEST_CPU_LOG) this.started = { cpu: process.cpuUsage(), children: childrenCpu(), wall: Date.now() };
		if (process.env.TEST_CPU_PROFILE) this.profiler = startProfiler();
	}

	async setup() {
		await super.setup();
		const quiet = { ...this.global.console };
		for (const method of METHODS) quiet[method] = (...args) => this.lines.push(`${method}: ${format(...args)}`);
		this.global.console = quiet;
	}

	async teardown() {
		await super.teardown();
		if (this.profiler)
			await stopProfiler(this.profiler, join(process.env.TEST_CPU_PROFILE, `${basename(this.testPath)}.${process.pid}.cpuprofile`));
		if (this.started) logCpu(process.env.TEST_CPU_LOG, this.testPath, this.started);
		if (this.memoryLimit > 0 && process.memoryUsage().heapUsed > this.memoryLimit * 0.75) collectGarbage();
	}

	async handleTestEvent(event) {
		if (event.name === 'test_start') this.lines.length = 0;
		const failed =
			(event.name === 'test_done' && event.test.errors.length > 0) || event.name === 'hook_failure' || event.name === 'test_fn_failure';
		if (failed && this.lines.length > 0) {
			const what = event.test ? event.test.name : event.hook ? `${event.hook.type} hook` : 'a test';
			process.stderr.write(`\nWhat was logged during "${what}":\n${this.lines.join('\n')}\n`);
			this.lines.length = 0;
		}
	}
}

/** A full collection: `gc` exists in a context made while the flag is set, which is unset again so that test files' contexts have none. */
function collectGarbage() {
	setFlagsFromString('--expose-gc');
	const gc = runInNewContext('gc');
	setFlagsFromString('--no-expose-gc');
	gc();
}

/** CPU seconds of the worker's child processes that have ended (the fresh processes some tests start), from /proc. */
function childrenCpu() {
	try {
		const fields = readFileSync('/proc/self/stat', 'utf8')
			.replace(/^.*\) /, '')
			.split(' ');
		return (Number(fields[13]) + Number(fields[14])) / 100; // cutime and cstime, in clock ticks of 1/100 s
	} catch {
		return 0;
	}
}

function logCpu(file, testPath, started) {
	const own = process.cpuUsage(started.cpu);
	appendCpuLine(file, {
		cpu: (own.user + own.system) / 1e6 + (childrenCpu() - started.children),
		pid: process.pid,
		heapMiB: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
		wall: (Date.now() - started.wall) / 1000,
		path: relative(process.cwd(), testPath),
	});
}

function startProfiler() {
	const { Session } = require('node:inspector');
	const session = new Session();
	session.connect();
	session.post('Profiler.enable');
	session.post('Profiler.start');
	return session;
}

function stopProfiler(session, file) {
	return new Promise((resolve) =>
		session.post('Profiler.stop', (error, result) => {
			if (!error) writeFileSync(file, JSON.stringify(result.profile));
			session.disconnect();
			resolve();
		}),
	);
}

module.exports = QuietEnvironment;
