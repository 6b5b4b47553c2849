/**
 * Jest's node environment, counting failed tests and hooks in `globalThis.__failedCases` so that
 * the suite's last hook knows whether to keep the processes' logs.
 */
const { TestEnvironment } = require('jest-environment-node');

class FailureTrackingEnvironment extends TestEnvironment {
	async setup() {
		await super.setup();
		this.global.__failedCases = 0;
	}

	async handleTestEvent(event) {
		const failed = (event.name === 'test_done' && event.test.errors.length > 0) || event.name === 'hook_failure';
		if (failed) this.global.__failedCases += 1;
	}
}

module.exports = FailureTrackingEnvironment;
