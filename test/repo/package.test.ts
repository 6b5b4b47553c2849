/**
 * The package as n8n and its verification see it: manifest rules, and a built dist/ where every
 * registered node and credential loads, with its codex file and both icon variants beside it.
 * `npm test` builds before Jest runs, so dist/ is fresh here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { filesNeededBy } from '../support/package-files';

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

describe('package manifest', () => {
	it('is a community node package with no runtime dependencies', () => {
		expect(pkg.name).toBe('n8n-nodes-host');
		expect(pkg.license).toBe('MIT');
		expect(pkg.keywords).toContain('n8n-community-node-package');
		expect(pkg.files).toEqual(['dist']);
		expect(pkg.dependencies ?? {}).toEqual({});
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		// n8n brings its own n8n-workflow: a manual `npm install n8n-nodes-host` must not install a second one.
		expect(pkg.peerDependenciesMeta).toEqual({ 'n8n-workflow': { optional: true } });
		expect(pkg.n8n.n8nNodesApiVersion).toBe(1);
	});

	it('pins n8n-workflow to the version n8n-core uses, so one copy of its error classes exists', () => {
		const core = JSON.parse(readFileSync(join(ROOT, 'node_modules/n8n-core/package.json'), 'utf8'));
		expect(pkg.devDependencies['n8n-workflow']).toBe(core.dependencies['n8n-workflow']);
		expect(existsSync(join(ROOT, 'node_modules/n8n-core/node_modules/n8n-workflow'))).toBe(false);
	});
});

describe('built dist/', () => {
	const registered: string[] = [...pkg.n8n.credentials, ...pkg.n8n.nodes];

	it.each(registered)('%s exists and loads', (path) => {
		const file = join(ROOT, path);
		expect(existsSync(file)).toBe(true);
		const exports = require(file);
		const Class = Object.values(exports).find((value) => typeof value === 'function') as new () => unknown;
		expect(Class).toBeDefined();
		expect(() => new Class()).not.toThrow();
	});

	it.each(pkg.n8n.nodes as string[])('%s has its codex file and both icons in dist', (path) => {
		const { codex, icons } = filesNeededBy(path);
		expect(existsSync(join(ROOT, codex!))).toBe(true);
		expect(icons).toHaveLength(2);
		for (const icon of icons) expect(existsSync(join(ROOT, icon))).toBe(true);
	});

	it.each(pkg.n8n.credentials as string[])('%s has both icons in dist and a test request', (path) => {
		const file = join(ROOT, path);
		const exports = require(file);
		const Class = Object.values(exports).find((value) => typeof value === 'function') as new () => {
			test?: unknown;
			documentationUrl?: string;
		};
		const credential = new Class();
		const { icons } = filesNeededBy(path);
		expect(icons).toHaveLength(2);
		for (const icon of icons) expect(existsSync(join(ROOT, icon))).toBe(true);
		expect(credential.test).toBeDefined();
		expect(credential.documentationUrl).toMatch(/^https:\/\//);
	});
});
