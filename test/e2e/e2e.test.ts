/**
 * `npm run test:e2e`: the package in a real n8n. One stack (simulator, n8n with the built package
 * installed as a community package, owner, credentials, examples) is started once for all cases
 * and stopped at the end, also when a case or the set-up fails.
 *
 * Cases live in test/e2e/cases/*.ts, each a plain module with `describe` blocks that read the
 * stack through `e2e()`; every file there is loaded, in name order. Add a file to add cases.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { recordReliability, recordedReliability } from '../helpers/reliability';
import { loadCaseFiles } from './support/case-files';
import { e2e, setE2eStack } from './support/context';
import { auditSecrets } from './support/secrets-audit';
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
	// n8n's log (of every start) outlives the temporary user folder, for a failed case to be read after.
	if (stack) {
		const kept = join(__dirname, '.work', 'n8n.log');
		mkdirSync(join(__dirname, '.work'), { recursive: true });
		copyFileSync(stack.n8n.logFile, kept);
		process.stderr.write(`[e2e] n8n's log: ${kept}\n`);
	}
	await stack?.stop();
}, 60000);

loadCaseFiles(join(__dirname, 'cases'));

// After every case (one of them restarts n8n): the database, log, request log and outputs as the run left them.
describe('secrets audit of the run', () => {
	it("no secret is in n8n's database, its log, the simulator's request log or an output item, outside where it belongs", () => {
		const audit = auditSecrets(e2e());
		process.stderr.write(
			`[e2e] secrets audit: ${audit.secrets} secrets (${audit.resumeUrls} resume URL signatures) in ${audit.searched.databaseRows} database rows, ${audit.searched.logBytes} bytes of n8n's log, ${audit.searched.requests} requests, ${audit.searched.outputs} node outputs; n8n keeps ${audit.tokensKeptByN8n.length} resume tokens in its execution data\n`,
		);
		recordReliability('restart', {
			...recordedReliability('restart'),
			secrets_found: audit.hits.length,
			secrets_searched: audit.secrets,
			resume_tokens_kept_by_n8n: audit.tokensKeptByN8n.length,
		});
		expect(audit.resumeUrls).toBeGreaterThan(0);
		expect(audit.hits.map((hit) => `${hit.secret} (${hit.form}) in ${hit.where}`)).toEqual([]);
	});
});
