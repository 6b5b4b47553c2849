/** `npm run test:real-server`: the package against the real upstream ComfyUI server (optional, not in CI; see test/real-server). */
const e2e = require('./jest.e2e.config');

module.exports = {
	...e2e,
	roots: ['<rootDir>/test'],
	testMatch: ['<rootDir>/test/real-server/real-server.test.ts'],
	// The engine cases' n8n user folder goes in the run's temporary folder, removed at the end.
	setupFiles: ['<rootDir>/test/setup-env.js'],
	globalSetup: '<rootDir>/test/global-setup.js',
	globalTeardown: '<rootDir>/test/global-teardown.js',
};
