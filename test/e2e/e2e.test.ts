/**
 * `npm run test:e2e`: the package in a real n8n. One stack (simulator, n8n with the built package
 * installed as a community package, owner, credentials, examples) is started once for all cases
 * and stopped at the end, also when a case or the set-up fails.
 *
 * Cases live in test/e2e/cases/*.ts, each a plain module with `describe` blocks that read the
 * stack through `e2e()`; every file there is loaded, in name order. Add a file to add cases.
 */
import { join } from 'node:path';

import { loadCaseFiles } from './support/case-files';
import { setE2eStack } from './support/context';
import { startHostStack, type HostStack } from './support/stack';

/** Cold: npm install of n8n (about 5 min) and sqlite3's compile (about 2 min) come first. */
const SET_UP_TIMEOUT_MS = 25 * 60 * 1000;

let stack: HostStack | undefined;

beforeAll(async () => {
	const started = Date.now();
	stack = await startHostStack({ progress: (line) => process.stderr.write(`[e2e] ${line}\n`) });
	setE2eStack(stack);
	process.stderr.write(`[e2e] stack ready in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
}, SET_UP_TIMEOUT_MS);

afterAll(async () => {
	setE2eStack(undefined);
	await stack?.stop();
}, 60000);

loadCaseFiles(join(__dirname, 'cases'));
