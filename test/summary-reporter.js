const { writeFileSync } = require('node:fs');
const { relative } = require('node:path');

// Ends a Jest run with one plain line, "N passed, N failed", that CI reads as the run's verdict.
// Before it, once each, the reason of every suite skipped for missing outside data
// (test/support/shared-data.ts titles those "skipped: …"): several files may skip for one data set.
// TEST_TIMES=n also lists the n slowest files (seconds from their start to their end, in their worker);
// TEST_FILE_SECONDS=file writes every file's seconds there as JSON (test/sequencer.js reads test/file-seconds.json).
class SummaryReporter {
	onRunComplete(_contexts, results) {
		const slowest = Number(process.env.TEST_TIMES);
		if (slowest > 0) process.stdout.write(slowestFiles(results.testResults, slowest));
		if (process.env.TEST_FILE_SECONDS) writeFileSeconds(process.env.TEST_FILE_SECONDS, results.testResults);
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

/** Every file's seconds, by its path from the project's folder, longest first. */
function writeFileSeconds(target, files) {
	const seconds = files
		.map((file) => [relative(process.cwd(), file.testFilePath), Math.round(secondsOf(file) * 10) / 10])
		.sort(([, a], [, b]) => b - a);
	writeFileSync(target, `${JSON.stringify(Object.fromEntries(seconds), null, '\t')}\n`);
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
