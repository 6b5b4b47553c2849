/**
 * Each node shows its own icon on n8n's canvas and in the node panel: its built description names a
 * light and a dark file of its own (icons/<node-name>.svg and .dark.svg), both in dist/, no file or
 * drawing shared with another node, and each a small, self-contained SVG on n8n's 60x60 viewBox:
 * well formed, shapes only (no script, text, image, style or link to anything outside the file).
 * The credentials' family icon is held to the same drawing rules. `npm test` builds before Jest
 * runs, so dist/ is fresh here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

import { filesNeededBy } from '../support/package-files';

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const nodes = pkg.n8n.nodes as string[];

/** The icon file stem a node owns: HostCloudTrigger.node.js gives host-cloud-trigger. */
const stemOf = (registered: string) =>
	basename(registered, '.node.js')
		.replace(/([a-z0-9])([A-Z])/g, '$1-$2')
		.toLowerCase();

const SHAPES = new Set(['svg', 'g', 'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon']);
const TAG = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<>]*")*)\s*(\/?)>/g;

/** What is wrong with an icon's markup: unbalanced or unknown tags, loose text, outside references. */
function svgProblems(svg: string): string[] {
	const problems: string[] = [];
	const open: string[] = [];
	let end = 0;
	for (const match of svg.matchAll(TAG)) {
		const [whole, closing, name, attributes, selfClosing] = match;
		const between = svg.slice(end, match.index);
		if (between.trim()) problems.push(`text or a malformed tag: ${between.trim().slice(0, 40)}`);
		end = match.index + whole.length;
		if (!SHAPES.has(name!)) problems.push(`<${name}> is not a shape`);
		if (/\s(on\w+|href|xlink:href|style)=|url\(/.test(attributes!)) problems.push(`<${name}> has a script, style or reference`);
		if (closing && open.pop() !== name) problems.push(`</${name}> does not close the innermost open tag`);
		if (!closing && !selfClosing) open.push(name!);
	}
	if (svg.slice(end).trim()) problems.push('text after the last tag');
	if (open.length) problems.push(`never closed: ${open.join(', ')}`);
	return problems;
}

describe('node icons', () => {
	const iconsOf = Object.fromEntries(nodes.map((registered) => [registered, filesNeededBy(registered).icons]));

	it.each(nodes)('%s names its own light and dark icon, both in dist/', (registered) => {
		const stem = stemOf(registered);
		expect(iconsOf[registered]).toEqual([`dist/icons/${stem}.svg`, `dist/icons/${stem}.dark.svg`]);
		for (const icon of iconsOf[registered]!) expect({ icon, exists: existsSync(join(ROOT, icon)) }).toEqual({ icon, exists: true });
	});

	it('shares no icon file, and no drawing, between nodes or between light and dark', () => {
		const files = Object.values(iconsOf).flat();
		expect(files).toHaveLength(nodes.length * 2);
		expect(new Set(files).size).toBe(files.length);
		const drawings = files.map((file) => readFileSync(join(ROOT, file), 'utf8'));
		expect(new Set(drawings).size).toBe(files.length);
	});

	const shipped = [...new Set([...nodes, ...pkg.n8n.credentials].flatMap((registered) => filesNeededBy(registered).icons))];

	it.each(shipped)('%s is a small, self-contained SVG on a 60x60 viewBox', (icon) => {
		const svg = readFileSync(join(ROOT, icon), 'utf8');
		expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 60 60"[^>]*>/);
		expect(svgProblems(svg)).toEqual([]);
		expect(svg.length).toBeLessThan(2048);
	});

	it('finds what the SVG check is there to find', () => {
		const frame = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 60">';
		expect(svgProblems(`${frame}<rect x="1" y="1" width="5" height="5"/></svg>`)).toEqual([]);
		expect(svgProblems(`${frame}<text x="1">H</text></svg>`)).toContain('text or a malformed tag: H');
		expect(svgProblems(`${frame}<script>alert(1)</script></svg>`)).toContain('<script> is not a shape');
		expect(svgProblems(`${frame}<g fill="url(#a)"><path d="M0 0"/></g></svg>`)).toEqual(['<g> has a script, style or reference']);
		expect(svgProblems(`${frame}<g><path d="M0 0"/></svg>`)).toEqual(['</svg> does not close the innermost open tag', 'never closed: svg']);
		expect(svgProblems(`${frame}<path d="M0 0></svg>`)).not.toEqual([]);
	});
});
