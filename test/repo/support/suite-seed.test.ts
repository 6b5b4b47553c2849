import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

import { suiteSeed } from '../../support/suite-seed';

const VARIABLE = 'SUITE_SEED_TEST';

afterEach(() => {
	delete process.env[VARIABLE];
});

describe('the seed of the random suites', () => {
	test('comes from the checked-out commit, so CI draws what the commit was tested with', () => {
		const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: path.resolve(__dirname, '../../..'), encoding: 'utf8' }).trim();
		expect(suiteSeed(VARIABLE)).toBe(parseInt(head.slice(0, 8), 16) % 2 ** 31);
	});

	test('replays a printed seed', () => {
		process.env[VARIABLE] = '305171994';
		expect(suiteSeed(VARIABLE)).toBe(305171994);
	});

	test('"random" draws a fresh one each time', () => {
		process.env[VARIABLE] = 'random';
		const drawn = new Set(Array.from({ length: 5 }, () => suiteSeed(VARIABLE)));
		expect(drawn.size).toBeGreaterThan(1);
	});

	test('refuses a value that is neither a number nor "random", naming the variable', () => {
		process.env[VARIABLE] = 'abc';
		expect(() => suiteSeed(VARIABLE)).toThrow(`${VARIABLE} must be a whole number or "random" (got "abc")`);
	});
});
