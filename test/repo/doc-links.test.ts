/**
 * Every link between the project's Markdown pages lands: the file exists, and a #section is a
 * heading of that page. The README is a front page that sends readers to docs/; a page moved or a
 * heading renamed must not leave a promise unfindable.
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
