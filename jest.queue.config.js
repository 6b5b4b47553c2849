/** The queue-mode suite (`npm run test:e2e:queue`): n8n's distributed engine, one entry file that starts the stack and loads test/e2e/queue/cases. */
const e2e = require('./jest.e2e.config');

module.exports = {
	...e2e,
	testMatch: ['<rootDir>/test/e2e/queue/queue.test.ts'],
	// Keeps every process's log when a case fails (see test/e2e/queue/queue.test.ts).
	testEnvironment: '<rootDir>/test/e2e/queue/failure-tracking-environment.js',
};
