/**
 * The package's own import graph, read from the sources as text: every relative `import`,
 * `import type`, `export … from` and `import('…')`, type-only ones included. Used by the structure
 * test and by `npm run cycles` to show that no module depends on itself through others.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

const SPECIFIER =
	/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

export function sourceFiles(root: string, folders: string[]): string[] {
	const out: string[] = [];
	const walk = (folder: string) => {
		for (const entry of readdirSync(folder)) {
			const path = join(folder, entry);
			if (statSync(path).isDirectory()) walk(path);
			else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) out.push(path);
		}
	};
	for (const folder of folders) if (existsSync(join(root, folder))) walk(join(root, folder));
	return out.sort();
}

function resolveImport(from: string, specifier: string): string | undefined {
	if (!specifier.startsWith('.')) return undefined;
	const base = resolve(dirname(from), specifier);
	for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base])
		if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
	return undefined;
}

/** File → the package files it imports. */
export function importGraph(files: string[]): Map<string, string[]> {
	const graph = new Map<string, string[]>();
	for (const file of files) {
		const text = readFileSync(file, 'utf8')
			.replace(/\/\*[\s\S]*?\*\//g, '')
			.replace(/^\s*\/\/.*$/gm, '');
		const targets = new Set<string>();
		for (const match of text.matchAll(SPECIFIER)) {
			const target = resolveImport(file, match[1] ?? match[2] ?? match[3] ?? '');
			if (target) targets.add(target);
		}
		graph.set(file, [...targets]);
	}
	return graph;
}

/** Every cycle of the graph, each once, as a list of files relative to `root` (Tarjan's strongly connected components). */
export function importCycles(graph: Map<string, string[]>, root: string): string[][] {
	let counter = 0;
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const cycles: string[][] = [];
	const visit = (node: string) => {
		index.set(node, counter);
		low.set(node, counter++);
		stack.push(node);
		onStack.add(node);
		for (const next of graph.get(node) ?? []) {
			if (!index.has(next)) {
				visit(next);
				low.set(node, Math.min(low.get(node)!, low.get(next)!));
			} else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
		}
		if (low.get(node) !== index.get(node)) return;
		const component: string[] = [];
		let member: string;
		do {
			member = stack.pop()!;
			onStack.delete(member);
			component.push(relative(root, member));
		} while (member !== node);
		if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
	};
	for (const node of graph.keys()) if (!index.has(node)) visit(node);
	return cycles;
}
