/**
 * The editor as a user sees it (Debian's Chromium, headless): a workflow with the package's four
 * nodes opens, and each node renders with its own icon (not n8n's "not installed" placeholder) and
 * offers the resources and operations its description declares. The canvas screenshot goes to
 * test/e2e/.work/editor.png; with E2E_UPDATE_SCREENSHOT=1 also to docs/editor.png (the README's).
 */
import { join } from 'node:path';

import { V2_CREDENTIAL_TYPE } from '../support/instance-setup';
import { e2e } from '../support/context';
import { inspectWorkflowInEditor, type EditorNodeReport } from '../support/editor';
import type { NodeTypeDescription, WorkflowNode } from '../support/n8n-client';
import { REPO_ROOT } from '../support/n8n-server';
import { hostNodeType, linearWorkflow } from '../support/workflows';

/** The package's nodes, in the order the screenshot shows them, set up as a user would start. */
const PACKAGE_NODES: Array<{ type: string; name: string; parameters: Record<string, unknown> }> = [
	{ type: 'hostTaskTrigger', name: 'Host Task Trigger', parameters: {} },
	{ type: 'hostCloudTrigger', name: 'Host Cloud Trigger', parameters: {} },
	{ type: 'hostCloud', name: 'Host Cloud', parameters: {} },
	{ type: 'hostRegistry', name: 'Host Registry', parameters: { resource: 'node', operation: 'getAll' } },
	{
		type: 'hostMedia',
		name: 'Host Media',
		parameters: {
			resource: 'image',
			operation: 'upscale',
			imageSource: 'url',
			imageUrl: 'https://example.com/photo.jpg',
			scaleFactor: '4x',
		},
	},
];

/** Dropdowns to open: Resource and Operation where the node has them, else its first options field. */
function dropdownsOf(description: NodeTypeDescription): string[] {
	const names = description.properties.map((property) => property.name);
	if (names.includes('operation')) return names.includes('resource') ? ['resource', 'operation'] : ['operation'];
	const first = description.properties.find((property) => property.type === 'options' && !property.displayOptions);
	return first ? [first.name] : [];
}

/** What the dropdown must list: the option names of the field shown for the node's resource. */
function expectedOptions(description: NodeTypeDescription, parameter: string, parameters: Record<string, unknown>): string[] {
	const resource = parameters.resource ?? description.properties.find((property) => property.name === 'resource')?.default;
	const candidates = description.properties.filter((property) => property.name === parameter);
	const shown =
		candidates.find((property) => {
			const show = property.displayOptions?.show;
			return !show || !show.resource || show.resource.includes(resource);
		}) ?? candidates[0];
	return (shown?.options ?? []).map((option) => option.name);
}

describe('the package in n8n’s editor (Chromium)', () => {
	let reports: Record<string, EditorNodeReport> = {};
	let descriptions = new Map<string, NodeTypeDescription>();
	let setUpError: Error | undefined;

	beforeAll(
		async () => {
			try {
				const { client, importWorkflow, n8n, owner } = e2e();
				descriptions = new Map((await client.nodeTypes()).map((type) => [type.name, type]));
				const present = PACKAGE_NODES.filter((node) => descriptions.has(hostNodeType(node.type)));
				const nodes: Array<Omit<WorkflowNode, 'position'>> = present.map((node) => {
					const description = descriptions.get(hostNodeType(node.type))!;
					// The v2 credential shows only with API Generation V2 (v1 here), and the stack creates none.
					const credentialTypes = ((description.credentials as Array<{ name: string }> | undefined) ?? [])
						.map((credential) => credential.name)
						.filter((type) => type !== V2_CREDENTIAL_TYPE);
					return {
						name: node.name,
						type: hostNodeType(node.type),
						typeVersion: Array.isArray(description.version) ? Math.max(...description.version) : description.version,
						parameters: node.parameters,
						credentials: Object.fromEntries(credentialTypes.map((type) => [type, { name: type }])),
					};
				});
				const chained = linearWorkflow('The Host nodes', nodes);
				// Nothing leads into a trigger: the first one starts the chain, the other stands beside it.
				const triggers = new Set(present.filter((node) => /Trigger$/.test(node.type)).map((node) => node.name));
				for (const [from, outputs] of Object.entries(chained.connections) as Array<[string, { main: Array<Array<{ node: string }>> }]>) {
					outputs.main = outputs.main.map((links) => links.filter((link) => !triggers.has(link.node)));
					if (triggers.has(from) && outputs.main.every((links) => links.length === 0)) delete chained.connections[from];
				}
				const taskTrigger = chained.nodes.find((node) => node.name === 'Host Task Trigger');
				const cloudTrigger = chained.nodes.find((node) => node.name === 'Host Cloud Trigger');
				if (taskTrigger && cloudTrigger) {
					// The chain starts at Host Cloud Trigger; Host Task Trigger leads into Host Cloud from below.
					chained.connections['Host Task Trigger'] = { main: [[{ node: 'Host Cloud', type: 'main', index: 0 }]] };
					chained.connections['Host Cloud Trigger'] = { main: [[{ node: 'Host Cloud', type: 'main', index: 0 }]] };
					taskTrigger.position = [cloudTrigger.position[0], cloudTrigger.position[1] + 200];
				}
				const workflow = await importWorkflow(chained);
				const screenshots = [join(REPO_ROOT, 'test', 'e2e', '.work', 'editor.png')];
				if (process.env.E2E_UPDATE_SCREENSHOT === '1') screenshots.push(join(REPO_ROOT, 'docs', 'editor.png'));
				reports = await inspectWorkflowInEditor({
					url: n8n.url,
					owner,
					workflowId: workflow.id,
					nodes: Object.fromEntries(present.map((node) => [node.name, dropdownsOf(descriptions.get(hostNodeType(node.type))!)])),
					screenshots,
					progress: (line) => process.stderr.write(`[e2e] ${line}\n`),
				});
			} catch (error) {
				setUpError = error as Error;
			}
		},
		10 * 60 * 1000,
	);

	for (const node of PACKAGE_NODES) {
		it(`${node.name} renders with its icon, resources and operations`, () => {
			if (setUpError) throw setUpError;
			const type = hostNodeType(node.type);
			const description = descriptions.get(type);
			if (!description)
				throw new Error(`${node.name} (${type}) is not in this build: n8n did not load it (package.json "n8n.nodes", then npm run build)`);
			const report = reports[node.name]!;
			expect(report.rendered).toBe(true);
			expect(report.type).toBe(type);
			expect(report.notInstalled).toBe(false);
			expect(report.iconSrc).toMatch(/^\/icons\/n8n-nodes-host\//);
			expect(report.iconLoaded).toBe(true);
			expect(report.problem).toBeUndefined();
			const dropdowns = dropdownsOf(description);
			expect(Object.keys(report.dropdowns)).toEqual(dropdowns);
			for (const parameter of dropdowns)
				expect({ [parameter]: report.dropdowns[parameter] }).toEqual({
					[parameter]: expectedOptions(description, parameter, node.parameters),
				});
		});
	}
});
