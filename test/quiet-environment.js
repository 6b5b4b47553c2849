/**
 * Jest's node environment with a quiet console: what code under test logs (n8n-core's logger,
 * mostly) is kept per test and printed only when that test (or a hook) fails, so a passing run shows
 * the results and nothing between them.
 */
const { format } = require('node:util');
const { TestEnvironment } = require('jest-environment-node');

require('./worker-exit');

const METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'];

class QuietEnvironment extends TestEnvironment {
	constructor(config, context) {
		super(config, context);
		this.lines = [];
	}

	async setup() {
		await super.setup();
		const quiet = { ...this.global.console };
		for (const method of METHODS) quiet[method] = (...args) => this.lines.push(`${method}: ${format(...args)}`);
		this.global.console = quiet;
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

module.exports = QuietEnvironment;
