/**
 * `npm run test:e2e:queue`: the package in n8n's queue mode. One stack (PostgreSQL, Redis, the
 * simulator, n8n's main process, two workers, one webhook processor; see
 * support/queue-stack.ts) is started for all cases and stopped at the end, also when a case or the
 * set-up fails. When anything failed, every process's log is copied to test/e2e/.work/queue-logs/.
 *
 * Cases live in test/e2e/queue/cases/*.ts, loaded in name order; the one that kills a worker runs last.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { loadCaseFiles } from '../support/case-files';
import { startQueueStack, type QueueStack } from '../support/queue-stack';
import { setQueueStack } from './context';

/** Cold: the n8n runtime's install (about 7 minutes) and apt-get for PostgreSQL or Redis come first. */
const SET_UP_TIMEOUT_MS = 25 * 60 * 1000;
const LOGS_DIR = join(__dirname, '..', '.work', 'queue-logs');

let stack: QueueStack | undefined;

beforeAll(async () => {
	stack = await startQueueStack({ progress: (line) => process.stderr.write(`[e2e:queue] ${line}\n`) });
	setQueueStack(stack);
}, SET_UP_TIMEOUT_MS);

afterAll(async () => {
	setQueueStack(undefined);
	const failures = (globalThis as { __failedCases?: number }).__failedCases ?? 0;
	if (stack && failures > 0) {
		rmSync(LOGS_DIR, { recursive: true, force: true });
		const kept = stack.keepLogs(LOGS_DIR);
		process.stderr.write(`[e2e:queue] ${failures} failure(s): the logs of every process are in ${LOGS_DIR} (${kept.length} files)\n`);
	}
	await stack?.stop();
}, 60000);

loadCaseFiles(join(__dirname, 'cases'));
