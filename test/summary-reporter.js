// Ends a Jest run with one plain line, "N passed, N failed", that CI reads as the run's verdict.
// Before it, once each, the reason of every suite skipped for missing outside data
// (test/support/shared-data.ts titles those "skipped: …"): several files may skip for one data set.
class SummaryReporter {
	onRunComplete(_contexts, results) {
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
module.exports = SummaryReporter;
