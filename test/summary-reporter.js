// Ends a Jest run with one plain line, "N passed, N failed", that CI reads as the run's verdict.
class SummaryReporter {
	onRunComplete(_contexts, results) {
		const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
		process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed\n`);
	}
}
module.exports = SummaryReporter;
