/**
 * What an operation of this package is made of, written once: the steps of docs/architecture.md's
 * recipe "Adding an operation" in order, each with the words the recipe's step must hold and the
 * check that every operation module (nodes/<Node>/actions/<resource>/<op>.operation.ts) has that
 * artifact. `test/repo/operation-recipe.test.ts` runs both sides from this one list, so a kind of
 * artifact cannot be added to the recipe without a check, nor to the checks without the recipe.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import type { INodeProperties, INodeType } from 'n8n-workflow';

import { HostCloud } from '../../../nodes/HostCloud/HostCloud.node';
import { HostMedia } from '../../../nodes/HostMedia/HostMedia.node';
import { HostRegistry } from '../../../nodes/HostRegistry/HostRegistry.node';
import { importGraph, sourceFiles } from '../../support/import-graph';
import { ROOT } from './folder-blocks';

export interface Operation {
	/** `HostCloud/workflow/execute`. */
	id: string;
	node: string;
	resource: string;
	value: string;
	/** As the node shows them: "Host Cloud", "Workflow", "Execute". */
	nodeName: string;
	resourceName: string;
	name: string;
	file: string;
}

/** What the services answer at: an operation's endpoints, from its row in its node's page. */
export interface Endpoint {
	method: string;
	/** A path a request can take: each `{parameter}` given a value. */
	path: string;
	/** What a simulator test must name of it: the path up to its first parameter, without `/api`. */
	fixed: string;
}

export interface Step {
	artifact: string;
	/** What the recipe's step must name. */
	named: RegExp;
	/** Why an operation lacks it, or undefined when it has it. */
	lacks(operation: Operation, facts: Facts): string | undefined;
}

/** What the checks read, gathered once. */
export interface Facts {
	imports: Map<string, string[]>;
	/** `METHOD path` → whether a simulator server routes it (filled by the test, which starts them). */
	routed: Map<string, boolean>;
	/** Operations whose endpoint no test/simulator file names yet, by id: known, listed, to be filled. */
	withoutSimulatorTest: readonly string[];
}

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

export const NODES: Record<string, INodeType> = {
	HostCloud: new HostCloud(),
	HostMedia: new HostMedia(),
	HostRegistry: new HostRegistry(),
};

/** docs/host-cloud.md for HostCloud. */
export const pageOf = (node: string) => `docs/${node.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}.md`;

const optionsOf = (property: INodeProperties | undefined) => (property?.options ?? []) as Array<{ name: string; value: string }>;

/** Every operation module of the nodes, with the names the node shows for it. */
export function operations(): Operation[] {
	return Object.entries(NODES).flatMap(([node, type]) => {
		const properties = type.description.properties;
		const resources = optionsOf(properties.find((property) => property.name === 'resource'));
		const actions = join(ROOT, 'nodes', node, 'actions');
		return readdirSync(actions, { withFileTypes: true })
			.filter((entry) => entry.isDirectory())
			.flatMap(({ name: resource }) =>
				readdirSync(join(actions, resource))
					.filter((file) => file.endsWith('.operation.ts'))
					.map((file) => {
						const value = file.replace(/\.operation\.ts$/, '');
						const dropdown = properties.find(
							(property) => property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resource),
						);
						return {
							id: `${node}/${resource}/${value}`,
							node,
							resource,
							value,
							nodeName: type.description.displayName,
							resourceName: resources.find((option) => option.value === resource)?.name ?? resource,
							name: optionsOf(dropdown).find((option) => option.value === value)?.name ?? value,
							file: `nodes/${node}/actions/${resource}/${file}`,
						};
					}),
			);
	});
}

/** The cells of a Markdown table row, trimmed, emphasis dropped. */
const cells = (row: string) =>
	row
		.split('|')
		.slice(1, -1)
		.map((cell) => cell.trim().replace(/^\*+|\*+$/g, ''));

/** The operation's row of its node's page: `| Resource | Operation | What it does | Endpoint |`. */
export function docRow(operation: Operation): string[] | undefined {
	return read(pageOf(operation.node))
		.split('\n')
		.filter((line) => line.startsWith('|'))
		.map(cells)
		.find(([resource, name]) => resource === operation.resourceName && name === operation.name);
}

/** A path parameter the simulator routes by its value (an image task's type), and one it serves. */
const PARAMETER_EXAMPLES: Record<string, string> = { type: 'image-upscaler' };

/** The endpoints the row names (`GET /api/history/{prompt_id}`). */
export function endpointsOf(operation: Operation): Endpoint[] {
	const row = docRow(operation);
	return [...(row?.at(-1) ?? '').matchAll(/`(GET|HEAD|POST|PUT|PATCH|DELETE) (\/[^`\s?…]*)/g)].map(([, method, template]) => ({
		method: method!,
		path: template!.replace(/\{([^}]+)\}/g, (_whole, name: string) => PARAMETER_EXAMPLES[name] ?? 'x1'),
		fixed: template!.split('{')[0]!.replace(/^\/api(?=\/)/, ''),
	}));
}

const simulatorTests = () => sourceFiles(ROOT, ['test/simulator']).map((file) => withConstants(readFileSync(file, 'utf8')));

function reaches(imports: Map<string, string[]>, from: string, target: string): boolean {
	const seen = new Set<string>();
	const next = [join(ROOT, from)];
	while (next.length) {
		const file = next.pop()!;
		if (relative(ROOT, file).startsWith(target)) return true;
		if (seen.has(file)) continue;
		seen.add(file);
		next.push(...(imports.get(file) ?? []));
	}
	return false;
}

const quoted = (value: string) => new RegExp(`['"]${value}['"]`);

const escaped = (text: string) => text.replace(/[/.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The rows of docs/ai-agents.md about an operation: what its tool may do (`| Host Cloud → *Execute* |`)
 * or why it is no tool (`| Host Cloud | *Download Output* |`), by its name (or name and resource,
 * "Generate Music") among the names of the cell.
 */
function toolRows(op: Operation): string[] {
	const word = new RegExp(`(^|[*,:→ ])${escaped(op.name)}(?: ${escaped(op.resourceName)})?([*,]|$)`);
	return read('docs/ai-agents.md')
		.split('\n')
		.filter((line) => {
			if (line.startsWith(`| ${op.nodeName} → `)) return word.test(cells(line)[0]!);
			return line.startsWith(`| ${op.nodeName} |`) && word.test(cells(line)[1]!);
		});
}

/** A test file's text with its string constants written out (`${IMAGING}/image-relight`). */
function withConstants(text: string): string {
	const constants = [...text.matchAll(/const (\w+) = '([^']*)';/g)];
	return constants.reduce((out, [, name, value]) => out.replaceAll(`\${${name}}`, value!), text);
}

/** The recipe, in order. */
export const STEPS: Step[] = [
	{
		artifact: 'its operation file: parameters and execute',
		named: /actions\/<resource>\/<operation>\.operation\.ts/,
		lacks: (op) => (existsSync(join(ROOT, op.file)) ? undefined : `no ${op.file}`),
	},
	{
		artifact: "its entry in the resource's index.ts (the module and its Operation option)",
		named: /actions\/<resource>\/index\.ts/,
		lacks: (op) => {
			const index = read(`nodes/${op.node}/actions/${op.resource}/index.ts`);
			if (!index.includes(`'./${op.value}.operation'`)) return 'index.ts does not import it';
			return op.name === op.value ? 'no Operation option offers it' : undefined;
		},
	},
	{
		artifact: "its endpoint's function in the node's transport/",
		named: /nodes\/<Node>\/transport\//,
		lacks: (op, facts) =>
			reaches(facts.imports, op.file, `nodes/${op.node}/transport/`) ? undefined : `it reaches nothing in nodes/${op.node}/transport/`,
	},
	{
		artifact: 'the endpoint in the simulator',
		named: /`simulator\/`/,
		lacks: (op, facts) => {
			const missing = endpointsOf(op).filter(({ method, path }) => !facts.routed.get(`${method} ${path}`));
			return missing.length ? `the simulator routes no ${missing.map(({ method, path }) => `${method} ${path}`).join(', ')}` : undefined;
		},
	},
	{
		artifact: 'a simulator test of the endpoint',
		named: /`test\/simulator\/`/,
		lacks: (op, facts) => {
			const tests = simulatorTests();
			const untested = endpointsOf(op).filter(({ fixed }) => !tests.some((text) => text.includes(fixed)));
			if (untested.length === 0)
				return facts.withoutSimulatorTest.includes(op.id) ? 'it has one now: take it off the list of gaps' : undefined;
			return facts.withoutSimulatorTest.includes(op.id)
				? undefined
				: `no test/simulator file names ${untested.map(({ fixed }) => fixed).join(', ')}`;
		},
	},
	{
		artifact: "an engine test: the operation through n8n's engine against the simulator",
		named: /`test\/engine\/<Node>\/`/,
		lacks: (op) =>
			sourceFiles(ROOT, [`test/engine/${op.node}`]).some((file) => quoted(op.value).test(readFileSync(file, 'utf8')))
				? undefined
				: `no file of test/engine/${op.node}/ runs '${op.value}'`,
	},
	{
		artifact: "its row in the node's page (resource, operation, what it does, endpoint)",
		named: /`docs\/host-<node>\.md`/,
		lacks: (op) =>
			docRow(op) && endpointsOf(op).length ? undefined : `${pageOf(op.node)} has no row | ${op.resourceName} | ${op.name} | … | endpoint |`,
	},
	{
		artifact: 'what it may do as a tool (or why it is none), in docs/ai-agents.md',
		named: /`docs\/ai-agents\.md`/,
		lacks: (op) =>
			toolRows(op).length
				? undefined
				: `docs/ai-agents.md has no row | ${op.nodeName} → *${op.name}* | or | ${op.nodeName} | *${op.name}* |`,
	},
	{
		artifact: "the README's section of the node, and the CHANGELOG's Unreleased section",
		named: /README[\s\S]*CHANGELOG/,
		lacks: (op) => {
			if (!new RegExp(`^## ${op.nodeName}$`, 'm').test(read('README.md'))) return `README.md has no section ## ${op.nodeName}`;
			return /^## Unreleased$/m.test(read('CHANGELOG.md')) ? undefined : 'CHANGELOG.md has no ## Unreleased section';
		},
	},
];

export const factsWithoutRoutes = (withoutSimulatorTest: readonly string[]): Facts => ({
	imports: importGraph(sourceFiles(ROOT, ['nodes', 'credentials'])),
	routed: new Map(),
	withoutSimulatorTest,
});
