/**
 * The codex files (nodes/*\/*.node.json) decide whether n8n's node panel lists a node. n8n's editor
 * (2.41) hides a node of category "AI" from its regular panels unless its AI subcategories include
 * "Root Nodes", and its search reads the display name and the codex aliases only. A fast guard;
 * test/e2e/cases/node-panel.ts searches the real panel.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeType, INodeTypeDescription, IVersionedNodeType } from 'n8n-workflow';

import { DISPLAY_NAMES, wordsFor, type PackageNode } from '../support/search-words';

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

interface Codex {
	node: string;
	categories?: string[];
	subcategories?: Record<string, string[]>;
	alias?: string[];
}

/** The node's description as n8n shows its newest version, and its codex file. */
function load(registered: string): { name: PackageNode; description: INodeTypeDescription; codex: Codex } {
	const source = join(ROOT, registered.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
	const exports = require(source) as Record<string, new () => INodeType | IVersionedNodeType>;
	const node = new (Object.values(exports).find((value) => typeof value === 'function')!)();
	const description =
		'nodeVersions' in node ? { ...node.description, ...node.nodeVersions[node.currentVersion]!.description } : node.description;
	const codex = JSON.parse(readFileSync(source.replace(/\.ts$/, '.json'), 'utf8')) as Codex;
	return { name: description.name as PackageNode, description: description as INodeTypeDescription, codex };
}

const nodes = (pkg.n8n.nodes as string[]).map(load);

describe('codex files: every node is findable in n8n’s node panel', () => {
	it('covers every node of the word list', () => {
		expect(nodes.map((node) => node.name).sort()).toEqual(Object.keys(DISPLAY_NAMES).sort());
	});

	it.each(nodes.map((node) => [node.name, node]))('%s: its codex names it, with categories and aliases', (name, node) => {
		expect(node.codex.node).toBe(`${pkg.name}.${name}`);
		expect(node.codex.categories?.length).toBeGreaterThan(0);
		expect(node.codex.alias?.length).toBeGreaterThan(0);
		expect(node.description.displayName).toBe(DISPLAY_NAMES[name]);
	});

	it('every node of category AI is a root node (else n8n hides it from search)', () => {
		const ai = nodes.filter((node) => node.codex.categories?.includes('AI'));
		expect(ai.length).toBeGreaterThan(0);
		expect(ai.filter((node) => !node.codex.subcategories?.AI?.includes('Root Nodes')).map((node) => node.name)).toEqual([]);
	});

	it.each(nodes.map((node) => [node.name, node]))('%s: its name or an alias holds each word it must be found by', (name, node) => {
		const searchable = [node.description.displayName, ...(node.codex.alias ?? [])].map((text) => text.toLowerCase());
		const unfound = wordsFor(name).filter((word) => !searchable.some((text) => text.includes(word.toLowerCase())));
		expect(unfound).toEqual([]);
	});

	it('the triggers are categorised as n8n’s app triggers are, and have their own trigger-panel text', () => {
		const triggers = nodes.filter((node) => node.description.group.includes('trigger'));
		expect(triggers.map((node) => node.name).sort()).toEqual(['hostCloudTrigger', 'hostTaskTrigger']);
		for (const trigger of triggers) {
			expect(trigger.codex.subcategories).toBeUndefined();
			expect(trigger.description.triggerPanel).toMatchObject({ header: expect.stringMatching(/\S/) });
		}
	});
});
