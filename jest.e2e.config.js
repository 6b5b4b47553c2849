/** The real-n8n suite (`npm run test:e2e`): one entry file that starts the stack and loads test/e2e/cases. */
module.exports = {
	// Jest's transform cache stays with the project, not in the system temp folder.
	cacheDirectory: '<rootDir>/node_modules/.cache/jest',
	testEnvironment: 'node',
	rootDir: __dirname,
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['<rootDir>/test/e2e/e2e.test.ts', '<rootDir>/test/e2e/demo.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { diagnostics: false }],
	},
	reporters: ['default', '<rootDir>/test/summary-reporter.js'],
	testTimeout: 120000,
	maxWorkers: 1,
};
