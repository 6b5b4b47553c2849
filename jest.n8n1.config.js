/** The n8n 1.x smoke suite (`npm run test:e2e:n8n1`): n8n 1.123 on Node 22, one entry file that starts the stack and loads test/e2e/n8n1/cases. */
const e2e = require('./jest.e2e.config');

module.exports = {
	...e2e,
	testMatch: ['<rootDir>/test/e2e/n8n1/n8n1.test.ts'],
};
