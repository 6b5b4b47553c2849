/**
 * The folder lists of the docs, kept true to the tree. A page marks a list with
 * `<!-- folders:PATH -->…<!-- /folders -->` (written by `npm run docs:sync` from the tree: one line per
 * subfolder of PATH with what its header comment says it is) or `<!-- folder-names:PATH -->…
 * <!-- /folder-names -->` (prose by hand, of which only the folders it names are checked: every
 * `` `name/` `` it writes). `test/repo/doc-folders.test.ts` compares both kinds with the tree.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..');

/** The pages whose folder lists are checked, and the blocks the tree says each must hold. */
export const FOLDER_PAGES = ['docs/development.md', 'docs/architecture.md'] as const;

export type BlockKind = 'folders' | 'folder-names';

export interface FolderBlock {
	page: string;
	kind: BlockKind;
	/** The folder whose subfolders the block lists, from the package root (`nodes/HostCloud/helpers`). */
	path: string;
	body: string;
}

const BLOCK = /<!-- (folders|folder-names):([\w./-]+) -->\n([\s\S]*?)<!-- \/\1 -->/g;

export function blocksOf(page: string, text: string): FolderBlock[] {
	return [...text.matchAll(BLOCK)].map(([, kind, path, body]) => ({ page, kind: kind as BlockKind, path: path!, body: body! }));
}

const isFolder = (path: string) => statSync(path).isDirectory();

/** The subfolders of a folder of the package, sorted. */
export function subfolders(path: string, root = ROOT): string[] {
	const full = join(root, path);
	if (!existsSync(full)) return [];
	return readdirSync(full)
		.filter((entry) => isFolder(join(full, entry)))
		.sort();
}

/** The folders a block names: a generated block's leading `` `name/` ``, any `` `name/` `` of prose. */
export function namesIn(block: Pick<FolderBlock, 'kind' | 'body'>): string[] {
	const pattern = block.kind === 'folders' ? /^- `([\w.-]+)\/`/gm : /`([\w.-]+)\/`/g;
	return [...new Set([...block.body.matchAll(pattern)].map(([, name]) => name!))].sort();
}

/** What the tree has that the block does not name, and what it names that the tree no longer has. */
export function folderDrift(block: FolderBlock, root = ROOT): { block: string; missing: string[]; gone: string[] } {
	const tree = subfolders(block.path, root);
	const named = namesIn(block);
	return {
		block: `${block.page} ${block.kind}:${block.path}`,
		missing: tree.filter((name) => !named.includes(name)),
		gone: named.filter((name) => !tree.includes(name)),
	};
}

/** A file's leading doc comment as one line of text. */
export function headerOf(file: string): string {
	const comment = /^\/\*\*([\s\S]*?)\*\//.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
	return comment
		.split('\n')
		.map((line) => line.replace(/^\s*\* ?/, '').trim())
		.filter(Boolean)
		.join(' ');
}

/** The first sentence (or clause before a `;`) of a text. */
const firstSentence = (text: string) => /^(.+?[.;])(?:\s|$)/.exec(text)?.[1]?.replace(/;$/, '.') ?? text;

const sourcesIn = (folder: string) =>
	readdirSync(folder)
		.filter((entry) => entry.endsWith('.ts') && !isFolder(join(folder, entry)))
		.sort();

/** The file of a folder whose header comment starts `name/: `, the folder's entry. */
export function headerEntry(folder: string, root = ROOT): string | undefined {
	const name = folder.split('/').pop()!;
	return sourcesIn(join(root, folder)).find((file) => headerOf(join(root, folder, file)).startsWith(`${name}/: `));
}

/**
 * What a folder's header says it is: the file whose header comment starts `name/: ` (the
 * project's way of writing a folder's entry), else the file named after the folder.
 */
export function folderMeaning(folder: string, root = ROOT): { entry: string; meaning: string } | undefined {
	const full = join(root, folder);
	const name = folder.split('/').pop()!;
	const entry = headerEntry(folder, root);
	if (entry) return { entry, meaning: firstSentence(headerOf(join(full, entry)).slice(name.length + 3)) };
	const eponym = `${name}.ts`;
	if (existsSync(join(full, eponym))) return { entry: eponym, meaning: firstSentence(headerOf(join(full, eponym))) };
	return undefined;
}

/** One line of a generated block: the folder, its entry and meaning, or else what it holds. */
function folderLine(path: string, name: string, root: string): string {
	const folder = `${path}/${name}`;
	const described = folderMeaning(folder, root);
	if (described) return `- \`${name}/\` (\`${described.entry}\`): ${described.meaning}`;
	const inner = subfolders(folder, root).map((entry) => `\`${entry}/\``);
	const files = sourcesIn(join(root, folder)).map((entry) => `\`${entry}\``);
	return `- \`${name}/\`: ${[...files, ...inner].join(', ')}`;
}

/** The body `npm run docs:sync` writes in a `folders:PATH` block. */
export function generatedBody(path: string, root = ROOT): string {
	return subfolders(path, root)
		.map((name) => `${folderLine(path, name, root)}\n`)
		.join('');
}

/** A page with every generated block rewritten from the tree. */
export function syncedPage(text: string, root = ROOT): string {
	return text.replace(BLOCK, (whole, kind: string, path: string) =>
		kind === 'folders' ? `<!-- folders:${path} -->\n${generatedBody(path, root)}<!-- /folders -->` : whole,
	);
}

/** Folders every node's helpers have by concern (a node whose helpers share one folder has none). */
export const helperFolderParents = (root = ROOT): string[] =>
	subfolders('nodes', root)
		.map((node) => `nodes/${node}/helpers`)
		.filter((path) => subfolders(path, root).length > 0);

/** The blocks each page must hold, derived from the tree: a new node or helpers folder needs its list. */
export const requiredBlocks = (root = ROOT): Array<{ page: string; kind: BlockKind; path: string }> => [
	...['nodes', 'nodes/shared', ...helperFolderParents(root)].map((path) => ({
		page: 'docs/development.md',
		kind: 'folders' as const,
		path,
	})),
	...['nodes/shared', ...helperFolderParents(root)].map((path) => ({ page: 'docs/architecture.md', kind: 'folder-names' as const, path })),
];
