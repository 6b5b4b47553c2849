/**
 * Small saved workflows (UI format) with hostile structure, for the converter's budgets: subgraph
 * instances nested `depth` levels deep with `fanOut` instances a level (fanOut^depth nodes from a
 * few kilobytes), and a chain of Reroutes whose end many inputs read (or a long one, which a
 * recursive walk could not follow without running out of stack).
 */
import { uiNode, type UiWorkflowJson } from './ui-workflows';
import type { NodeDefinitions } from '../../nodes/HostCloud/helpers/graph/class-definitions';

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

export const WIDE_SUBGRAPH = '00000000-0000-4000-8000-00000000beef';

/**
 * One subgraph whose `inputs` definition inputs each feed the `value` widget of its single inner
 * EmptyLatentImage (width), and `instances` hosts of it. Each host saves `hostInputs` inputs: the
 * definition's names in reverse order ("reverse"), other names ("other"), or none; and, with
 * `proxyWidgets`, one promoted widget per definition input. Lookups done per input, per entry or
 * per link make these files quadratic.
 */
export function wideSubgraph(options: {
	inputs: number;
	instances?: number;
	hostInputs?: 'reverse' | 'other' | 'none';
	proxyWidgets?: boolean;
}): UiWorkflowJson {
	const { inputs: count, instances = 1, hostInputs = 'reverse', proxyWidgets = false } = options;
	const names = Array.from({ length: count }, (_, index) => `in${index}`);
	const inner = uiNode(1, 'EmptyLatentImage', {
		inputs: names.map((name, index) => [name, 'INT', index + 1, 'width']),
		outputs: ['LATENT'],
		values: [512, 512, 1],
	});
	const subgraph = {
		id: WIDE_SUBGRAPH,
		name: 'Wide',
		inputs: names.map((name, index) => ({ name, type: 'INT', linkIds: [index + 1] })),
		outputs: [],
		nodes: [inner],
		links: names.map((_, index) => [index + 1, -10, index, 1, index, 'INT']),
	};
	const saved = hostInputs === 'none' ? [] : hostInputs === 'other' ? names.map((name) => `other_${name}`) : [...names].reverse();
	const hosts = Array.from({ length: instances }, (_, index) => {
		const host = uiNode(index + 1, WIDE_SUBGRAPH, {
			inputs: saved.map((name): [string, string, null, string] => [name, 'INT', null, name]),
			values: names.map((_, position) => 64 + position),
		});
		if (proxyWidgets) host.properties.proxyWidgets = names.map((name) => ['-1', name]);
		return host;
	});
	return { nodes: hosts, links: [], definitions: { subgraphs: [subgraph] }, version: 0.4 };
}

/** The node definitions the hostile workflows are converted with (the budgets test and the conversion bench). */
export const HOSTILE_DEFINITIONS: NodeDefinitions = {
	EmptyLatentImage: {
		input: { required: { width: ['INT', { default: 512 }], height: ['INT', { default: 512 }], batch_size: ['INT', { default: 1 }] } },
		input_order: { required: ['width', 'height', 'batch_size'] },
		output: ['LATENT'],
	},
	VAEDecode: {
		input: { required: { samples: ['LATENT'], vae: ['VAE'] } },
		input_order: { required: ['samples', 'vae'] },
		output: ['IMAGE'],
	},
};
