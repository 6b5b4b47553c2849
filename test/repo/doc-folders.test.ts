/**
 * The docs' folder lists are the tree's: every block a page marks (`folders:PATH`, written by
 * `npm run docs:sync`; `folder-names:PATH`, prose by hand) names each subfolder of PATH and no folder
 * that no longer exists, a generated block is what the sync writes today, and each page holds the
 * blocks the tree asks for (every node whose helpers are split by concern, and nodes/shared).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	blocksOf,
	folderDrift,
	FOLDER_PAGES,
	generatedBody,
	headerEntry,
	helperFolderParents,
	requiredBlocks,
	ROOT,
	subfolders,
} from './support/folder-blocks';

const blocks = FOLDER_PAGES.flatMap((page) => blocksOf(page, readFileSync(join(ROOT, page), 'utf8')));

test('each page holds the folder lists the tree asks for', () => {
	const held = blocks.map(({ page, kind, path }) => `${page} ${kind}:${path}`);
	const required = requiredBlocks().map(({ page, kind, path }) => `${page} ${kind}:${path}`);
	expect(required.filter((block) => !held.includes(block))).toEqual([]);
});

test.each(blocks.map((block) => [`${block.page} ${block.kind}:${block.path}`, block] as const))(
	'%s names every folder there and none that is gone',
	(_name, block) => {
		const drift = folderDrift(block);
		expect(drift).toEqual({ block: drift.block, missing: [], gone: [] });
	},
);

test.each(blocks.filter((block) => block.kind === 'folders').map((block) => [`${block.page} folders:${block.path}`, block] as const))(
	'%s is what `npm run docs:sync` writes from the tree',
	(_name, block) => {
		expect(block.body).toBe(generatedBody(block.path));
	},
);

test("every helpers folder split by concern has an entry whose header starts 'name/: '", () => {
	const withoutEntry = helperFolderParents().flatMap((parent) =>
		subfolders(parent)
			.filter((name) => !headerEntry(`${parent}/${name}`))
			.map((name) => `${parent}/${name}`),
	);
	expect(withoutEntry).toEqual([]);
});

describe('the check itself, on a tree made for it', () => {
	let root: string;
	beforeAll(() => {
		root = mkdtempSync(join(tmpdir(), 'doc-folders-'));
		for (const folder of ['kept', 'new-one', 'plain']) mkdirSync(join(root, 'nodes/X/helpers', folder), { recursive: true });
		writeFileSync(join(root, 'nodes/X/helpers/kept/entry.ts'), '/**\n * kept/: what is kept; and more.\n */\n');
		writeFileSync(join(root, 'nodes/X/helpers/plain/a.ts'), '/** A plain file. */\n');
	});
	afterAll(() => rmSync(root, { recursive: true, force: true }));

	test('names a folder missing from a list and a listed folder that is gone', () => {
		const text = '<!-- folder-names:nodes/X/helpers -->\n`kept/` and `old/`\n<!-- /folder-names -->\n';
		const [block] = blocksOf('page.md', text);
		expect(folderDrift(block!, root)).toEqual({
			block: 'page.md folder-names:nodes/X/helpers',
			missing: ['new-one', 'plain'],
			gone: ['old'],
		});
	});

	test('writes a folder by its entry header, else by its files', () => {
		expect(generatedBody('nodes/X/helpers', root)).toBe('- `kept/` (`entry.ts`): what is kept.\n- `new-one/`: \n- `plain/`: `a.ts`\n');
		expect(helperFolderParents(root)).toEqual(['nodes/X/helpers']);
	});
});
