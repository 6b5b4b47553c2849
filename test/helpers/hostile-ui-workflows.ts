/**
 * Small saved workflows (UI format) with hostile structure, for the converter's budgets: subgraph
 * instances nested `depth` levels deep with `fanOut` instances a level (fanOut^depth nodes from a
 * few kilobytes), and a chain of Reroutes whose end many inputs read (or a long one, which a
 * recursive walk could not follow without running out of stack).
 */
import { uiNode, type UiWorkflowJson } from './ui-workflows';

const subgraphId = (level: number) => `00000000-0000-4000-8000-${String(level).padStart(12, '0')}`;

/** Every level holds `fanOut` instances of the next; the last holds one EmptyLatentImage. */
export function nestedSubgraphs(depth: number, fanOut: number): UiWorkflowJson {
	const instances = (level: number) => Array.from({ length: fanOut }, (_, index) => uiNode(index + 1, subgraphId(level)));
	const subgraphs = Array.from({ length: depth }, (_, index) => {
		const level = index + 1;
		const nodes = level === depth ? [uiNode(1, 'EmptyLatentImage', { outputs: ['LATENT'], values: [512, 512, 1] })] : instances(level + 1);
		return { id: subgraphId(level), name: `Level ${level}`, nodes, links: [], inputs: [], outputs: [] };
	});
	return { nodes: instances(1), links: [], definitions: { subgraphs }, version: 0.4 };
}

/**
 * An EmptyLatentImage whose LATENT goes through `length` Reroutes, then into `readers` VAEDecode
 * nodes (their `samples` input; their `vae` is left unlinked).
 */
export function rerouteChain(length: number, readers: number): UiWorkflowJson {
	const nodes = [uiNode(1, 'EmptyLatentImage', { outputs: ['LATENT'], values: [512, 512, 1] })];
	const links: unknown[] = [];
	let origin = 1;
	for (let index = 0; index < length; index++) {
		const id = 100 + index;
		links.push([id, origin, 0, id, 0, 'LATENT']);
		nodes.push(uiNode(id, 'Reroute', { inputs: [['', '*', id]], outputs: ['LATENT'] }));
		origin = id;
	}
	for (let index = 0; index < readers; index++) {
		const id = 1_000_000 + index;
		links.push([id, origin, 0, id, 0, 'LATENT']);
		nodes.push(uiNode(id, 'VAEDecode', { inputs: [['samples', 'LATENT', id]], outputs: ['IMAGE'] }));
	}
	return { nodes, links, version: 0.4 };
}
