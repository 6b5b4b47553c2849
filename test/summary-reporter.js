const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { dirname, join, relative } = require('node:path');
const { cpuSecondsIn } = require('./cpu-log');

// Ends a Jest run with one plain line, "N passed, N failed", that CI reads as the run's verdict.
// Before it, once each, the reason of every suite skipped for missing outside data
// (test/support/shared-data.ts titles those "skipped: …"): several files may skip for one data set.
// TEST_TIMES=n also lists the n slowest files (seconds from their start to their end, in their worker);
// TEST_FILE_SECONDS=file writes every file's seconds there as JSON, with its CPU seconds from TEST_CPU_LOG
// (test/quiet-environment.js) when that is set too (test/sequencer.js plans the order from test/file-seconds.json).
class SummaryReporter {
	constructor() {
		// The workers start after the reporters, with this process's environment: each logs its files' CPU there.
		if (process.env.TEST_FILE_SECONDS && !process.env.TEST_CPU_LOG) {
			this.ownCpuLog = join(mkdtempSync(join(tmpdir(), 'n8n-nodes-host-cpu-')), 'cpu.log');
			process.env.TEST_CPU_LOG = this.ownCpuLog;
		}
	}

	onRunComplete(_contexts, results) {
		const slowest = Number(process.env.TEST_TIMES);
		if (slowest > 0) process.stdout.write(slowestFiles(results.testResults, slowest));
		if (process.env.TEST_FILE_SECONDS) writeFileSeconds(process.env.TEST_FILE_SECONDS, results.testResults);
		if (this.ownCpuLog) rmSync(dirname(this.ownCpuLog), { recursive: true, force: true });
		const reasons = new Set();
		for (const file of results.testResults) {
			for (const test of file.testResults) {
				if (test.status !== 'pending') continue;
				for (const title of test.ancestorTitles) if (title.startsWith('skipped: ')) reasons.add(title);
			}
		}
		const skipped = [...reasons].map((reason) => `${reason}\n`).join('');
		const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
		process.stdout.write(`\n${skipped}${results.numPassedTests} passed, ${failed} failed\n`);
	}
}

/** A test file's seconds, from its start to its end in its worker. */
const secondsOf = (file) => (file.perfStats.end - file.perfStats.start) / 1000;

/** Every file's seconds and CPU seconds, by its path from the project's folder, longest first. */
function writeFileSeconds(target, files) {
	const cpu = cpuSecondsIn(process.env.TEST_CPU_LOG);
	const entries = files
		.map((file) => {
			const path = relative(process.cwd(), file.testFilePath);
			return [path, { seconds: Math.round(secondsOf(file) * 10) / 10, cpu: cpu.get(path) }];
		})
		.sort(([, a], [, b]) => b.seconds - a.seconds);
	writeFileSync(target, `${JSON.stringify(Object.fromEntries(entries), null, '\t')}\n`);
}

/** The `count` slowest test files, one a line: seconds, then the path from the project's folder. */
function slowestFiles(files, count) {
	const timed = files.map((file) => ({ seconds: secondsOf(file), path: file.testFilePath }));
	timed.sort((a, b) => b.seconds - a.seconds);
	const lines = timed
		.slice(0, count)
		.map(({ seconds, path }) => `${seconds.toFixed(1).padStart(7)} s  ${path.replace(`${process.cwd()}/`, '')}`);
	return `\nslowest test files:\n${lines.join('\n')}\n`;
}

module.exports = SummaryReporter;
