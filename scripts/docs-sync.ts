/**
 * `npm run docs:sync`: rewrites the folder lists the docs mark `<!-- folders:PATH -->` from the tree
 * and the folders' header comments (test/repo/support/folder-blocks.ts), and says which pages
 * changed. Hand-written `folder-names` blocks are left alone: `test/repo/doc-folders.test.ts` names
 * what they miss.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { FOLDER_PAGES, ROOT, syncedPage } from '../test/repo/support/folder-blocks';

for (const page of FOLDER_PAGES) {
	const file = join(ROOT, page);
	const text = readFileSync(file, 'utf8');
	const synced = syncedPage(text);
	if (synced !== text) writeFileSync(file, synced);
	console.log(`${page}: ${synced === text ? 'already true to the tree' : 'folder lists rewritten'}`);
}
