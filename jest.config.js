/** Unit, repository, simulator and engine tests (test/unit, test/repo, test/simulator, test/engine); the real-n8n suite (test/e2e), the chaos suite (test/chaos) and the real-server suite (test/real-server) have their own runners. */
module.exports = {
	// Jest's transform cache stays with the project, not in the system temp folder.
	cacheDirectory: '<rootDir>/node_modules/.cache/jest',
	testEnvironment: '<rootDir>/test/quiet-environment.js',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/', '/test/chaos/', '/test/real-server/'],
	transform: {
		// esbuild, or ts-jest for a file that mocks modules (test/transform.js); no type-checking here.
		'^.+\\.ts$': '<rootDir>/test/transform.js',
	},
	reporters: ['default', '<rootDir>/test/summary-reporter.js'],
	// The order is planned from each file's seconds and CPU seconds in a quiet run (test/file-seconds.json).
	testSequencer: '<rootDir>/test/sequencer.js',
	globalSetup: '<rootDir>/test/global-setup.js',
	globalTeardown: '<rootDir>/test/global-teardown.js',
	setupFiles: ['<rootDir>/test/setup-env.js'],
	testTimeout: 30000,
	// Most engine tests wait on the simulator's timers or the node's own pauses, not the CPU: a worker
	// waiting on timers holds a place that a file needing the CPU could use. On this 2-core machine,
	// quiet, Jest took 507 s with 2 workers, 204 s with 6 and 168 s with 10 in Jest's own order; in
	// the planned order (test/sequencer.js, which plays the run with this many) 195 s with 8, 160 to
	// 166 s with 10, 154 s with 12 and 173 s with 14 (each worker's first file compiles n8n: more CPU).
	maxWorkers: 12,
	// A worker that has loaded n8n for many test files holds gigabytes and is slow to end (test/worker-exit.js):
	// one still over this after a test file (test/quiet-environment.js collects its garbage first) is
	// replaced by a fresh one.
	workerIdleMemoryLimit: '400MB',
};
