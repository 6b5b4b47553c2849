/**
 * package_load_ms: how long a fresh process takes to load every node and credential the built
 * package registers (what n8n does at start for an installed community package).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { report, ROOT } from './support';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };
// n8n-workflow is loaded by n8n itself before any community package: keep it out of the figure.
require('n8n-workflow');
const started = process.hrtime.bigint();
for (const path of [...pkg.n8n.credentials, ...pkg.n8n.nodes]) {
	const exports = require(join(ROOT, path)) as Record<string, new () => unknown>;
	for (const Class of Object.values(exports)) if (typeof Class === 'function') new Class();
}
const ms = Number(process.hrtime.bigint() - started) / 1e6;
report({ package_load_ms: Math.round(ms * 100) / 100 });
