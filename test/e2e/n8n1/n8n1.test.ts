/**
 * `npm run test:e2e:n8n1`: the package on n8n 1.x, the older line it supports (n8n 1.123 on Node
 * 22; see N8N_1_RUNTIME in support/runtime.ts). A smoke run of what differs from 2.x where the
 * package meets it: n8n-workflow 1.x's `sleep` takes no signal, so every wait that a job's end,
 * a cancel or an idle timer must cut short is checked here through n8n 1.x's own engine.
 *
 * The stack is the e2e suite's (support/stack.ts) on the 1.x runtime, without the examples
 * imported up front. Cases: test/e2e/n8n1/cases/*.ts, and the 2.x suite's cases that run unchanged.
 */
import { join } from 'node:path';

import { loadCaseFiles } from '../support/case-files';
import { N8N_1_RUNTIME } from '../support/runtime';
import { useHostStack } from '../support/suite-stack';

useHostStack('e2e:n8n1', 'n8n1.log', { runtime: N8N_1_RUNTIME, importExamples: false });

loadCaseFiles(join(__dirname, 'cases'));
// Stopping an execution while its cloud job runs: the node cancels that job (a queue delete).
require('../cases/cancel');
