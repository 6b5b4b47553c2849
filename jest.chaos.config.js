/** The chaos suites (`npm run test:chaos`): Host Cloud under load, Host Media and Host Registry under random faults, one file at a time. */
const base = require('./jest.config');

module.exports = {
	...base,
	testMatch: ['<rootDir>/test/chaos/**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	testTimeout: 300000,
	maxWorkers: 1,
};
