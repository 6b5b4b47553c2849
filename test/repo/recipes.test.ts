/**
 * The recipes in examples/recipes/ are templates a user imports anywhere: each says on the canvas
 * what it does and what to set, binds credentials by type only (no id, no secret), names no address
 * of one install (loopback, a test port, a temp folder), and is in the README with its picture.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DIR = join(ROOT, 'examples', 'recipes');
const files = readdirSync(DIR).filter((file) => file.endsWith('.json'));
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface Recipe {
	name: string;
	nodes: Array<{
		name: string;
		type: string;
		parameters: Record<string, unknown>;
		credentials?: Record<string, { id: string; name: string }>;
	}>;
	connections: Record<string, unknown>;
}

describe('examples/recipes', () => {
	it('holds at least six recipes', () => {
		expect(files.length).toBeGreaterThanOrEqual(6);
	});

	it.each(files)('%s: a sticky note, credentials by type only, nothing of one install, every node connected', (file) => {
		const text = readFileSync(join(DIR, file), 'utf8');
		const recipe = JSON.parse(text) as Recipe;
		expect(recipe.name).toMatch(/^Recipe: /);
		const notes = recipe.nodes.filter((node) => node.type === 'n8n-nodes-base.stickyNote');
		expect(notes.map((note) => String(note.parameters.content))).toEqual([expect.stringMatching(/^## .+\n[\s\S]*Set: /)]);
		for (const node of recipe.nodes) {
			for (const credential of Object.values(node.credentials ?? {}))
				expect({ node: node.name, id: credential.id }).toEqual({ node: node.name, id: '' });
		}
		expect(text).not.toMatch(/127\.0\.0\.1|localhost|\/tmp\/|\/root\/|\/home\/|apiKey|accessToken|password|BEGIN [A-Z ]*PRIVATE KEY/);
		const linked = new Set(
			Object.entries(recipe.connections).flatMap(([from, outputs]) => [
				from,
				...Object.values(outputs as Record<string, Array<Array<{ node: string }>>>).flatMap((output) =>
					output.flat().map((link) => link.node),
				),
			]),
		);
		const working = recipe.nodes.filter((node) => node.type !== 'n8n-nodes-base.stickyNote').map((node) => node.name);
		expect(working.filter((name) => !linked.has(name))).toEqual([]);
	});

	it.each(files)('%s: in the README with its canvas screenshot', (file) => {
		expect(readme).toContain(`(examples/recipes/${file})`);
		const picture = `docs/recipes/${file.replace(/\.json$/, '.png')}`;
		expect(readme).toContain(`(${picture})`);
		expect({ picture, exists: existsSync(join(ROOT, picture)) }).toEqual({ picture, exists: true });
	});
});

describe('form-to-image.json places the image address in HTML escaped', () => {
	const recipe = JSON.parse(readFileSync(join(DIR, 'form-to-image.json'), 'utf8')) as Recipe;
	const page = recipe.nodes.find((node) => node.type === 'n8n-nodes-base.form' && node.parameters.operation === 'completion')!;
	const html = String(page.parameters.responseText);
	const expressions = [...html.matchAll(/\{\{([\s\S]*?)\}\}/g)].map((match) => match[1]!);

	it('every expression in the page is the address with quotes and angle brackets escaped', () => {
		expect(expressions.length).toBeGreaterThanOrEqual(2);
		const hostile = 'https://x/a.png?"><script>alert(1)</script>\'';
		for (const expression of expressions) {
			// n8n evaluates the text between the braces as JavaScript with $json in scope.
			// eslint-disable-next-line @typescript-eslint/no-implied-eval
			const value = String(new Function('$json', `return (${expression});`)({ images: [{ url: hostile }] }));
			expect(value).not.toMatch(/["'<>]/);
			expect(value).toBe('https://x/a.png?&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#39;');
		}
	});
});
