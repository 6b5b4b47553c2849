/**
 * `npm run test:e2e`: the package in a real n8n. One stack (simulator, n8n with the built package
 * installed as a community package, owner, credentials, examples) is started once for all cases
 * and stopped at the end, also when a case or the set-up fails.
 *
 * Cases live in test/e2e/cases/*.ts, each a plain module with `describe` blocks that read the
 * stack through `e2e()`; every file there is loaded, in name order. Add a file to add cases.
 */
import { join } from 'node:path';

import { recordReliability, recordedReliability } from '../support/reliability';
import { loadCaseFiles } from './support/case-files';
import { e2e } from './support/context';
import { auditSecrets } from './support/secrets-audit';
import { useHostStack } from './support/suite-stack';

useHostStack('e2e', 'n8n.log');

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
