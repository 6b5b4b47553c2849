/**
 * Prints what n8n reads of each built node: the description of every node package.json registers,
 * loaded from dist/ (run `npm run build` first), as JSON with object keys sorted, so that two
 * builds compare with diff. A refactor should leave it unchanged:
 *   npx tsx scripts/node-descriptions.ts [ROOT] [--without icon,...] > descriptions.json
 * ROOT is a checkout with a built dist/ (this one by default); --without leaves out the named
 * description fields (a change meant to alter only them).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** A value with its object keys sorted, arrays kept in order, functions named as such. */
function sorted(value: unknown): unknown {
	if (typeof value === 'function') return `[function ${value.name}]`;
	if (Array.isArray(value)) return value.map(sorted);
	if (value === null || typeof value !== 'object') return value;
	const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
	return Object.fromEntries(entries.map(([key, inner]) => [key, sorted(inner)]));
}

function main(): void {
	const args = process.argv.slice(2);
	const flag = args.indexOf('--without');
	const without = flag >= 0 ? (args.splice(flag, 2)[1] ?? '').split(',').filter(Boolean) : [];
	const root = resolve(args[0] ?? join(__dirname, '..'));
	const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { n8n: { nodes: string[] } };
	const descriptions: Record<string, unknown> = {};
	for (const registered of pkg.n8n.nodes) {
		const exports = require(join(root, registered)) as Record<string, unknown>;
		const Class = Object.values(exports).find((value) => typeof value === 'function') as new () => { description: object };
		const description: Record<string, unknown> = { ...new Class().description };
		for (const field of without) delete description[field];
		descriptions[registered] = sorted(description);
	}
	process.stdout.write(`${JSON.stringify(descriptions, null, '\t')}\n`);
}

main();
