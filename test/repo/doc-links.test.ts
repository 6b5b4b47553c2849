/**
 * Every link between the project's Markdown pages lands: the file exists, and a #section is a
 * heading of that page. The README is a front page that sends readers to docs/; a page moved or a
 * heading renamed must not leave a promise unfindable. Every path of the repository a page writes in
 * backticks (`test/…`, `nodes/…`, `docs/…`, `examples/…`) exists too: a promise names its proof by
 * such a path, and a test moved must not leave the promise pointing at nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

const pages = [
	'README.md',
	'CHANGELOG.md',
	'bench/README.md',
	'test/e2e/README.md',
	...readdirSync(join(ROOT, 'docs'))
		.filter((file) => file.endsWith('.md'))
		.map((file) => `docs/${file}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
	heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');

function anchorsOf(file: string): Set<string> {
	const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
	return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => anchorOf(heading!)));
}

/** The page's relative links (not URLs), outside code blocks. */
function linksOf(file: string): string[] {
	const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
	return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target!).filter((target) => !/^[a-z]+:/.test(target));
}

test.each(pages.filter((page) => existsSync(join(ROOT, page))))('%s: every link to a page of the project lands', (page) => {
	const from = join(ROOT, page);
	const broken = linksOf(from).filter((target) => {
		const [path, anchor] = target.split('#') as [string, string | undefined];
		const file = path === '' ? from : join(dirname(from), decodeURIComponent(path));
		if (!existsSync(file)) return true;
		return anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor);
	});
	expect({ page: relative(ROOT, from), broken }).toEqual({ page: relative(ROOT, from), broken: [] });
});

/** Written in backticks as patterns, not paths: placeholders (`<Node>`, `X/Y/z`) and a run's own output folder. */
const NOT_PATHS = new Set(['nodes/X/Y/z.ts', 'test/unit/X/Y/z.test.ts', 'test/e2e/.work/queue-logs/']);

/** The repository paths the page writes in backticks, outside code blocks. */
function backtickedPathsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
	const paths = [...text.matchAll(/`((?:test|nodes|docs|examples)\/[^`\s]*)`/g)].map(([, path]) => path!);
	return [...new Set(paths)].filter((path) => !path.includes('<') && !NOT_PATHS.has(path));
}

/** A path exists; a `*` in its last part matches any text of a file name in its folder. */
function pathExists(path: string): boolean {
	if (!path.includes('*')) return existsSync(join(ROOT, path));
	const folder = join(ROOT, dirname(path));
	const pattern = new RegExp(
		`^${path
			.split('/')
			.pop()!
			.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
			.replace(/\*/g, '.*')}$`,
	);
	return existsSync(folder) && readdirSync(folder).some((name) => pattern.test(name));
}

const userPages = pages.filter((page) => page === 'README.md' || page.startsWith('docs/'));

test.each(userPages.filter((page) => existsSync(join(ROOT, page))))('%s: every repository path it names in backticks exists', (page) => {
	const missing = backtickedPathsOf(join(ROOT, page)).filter((path) => !pathExists(path));
	expect({ page, missing }).toEqual({ page, missing: [] });
});
