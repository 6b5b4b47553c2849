/**
 * The nodes as tools, checked from their descriptions: every operation either describes itself to
 * a model (a "Tool Description" shown only on the tool type) or says why a tool call cannot use it
 * (and is hidden on the tool type); tool mode is recognised both ways n8n runs a tool.
 */
import type { IExecuteFunctions, INodeProperties, INodePropertyOptions, INodeType } from 'n8n-workflow';

import { HostCloud } from '../../../../nodes/HostCloud/HostCloud.node';
import { resources as cloudResources } from '../../../../nodes/HostCloud/actions/router';
import { HostMedia } from '../../../../nodes/HostMedia/HostMedia.node';
import { resources as mediaResources } from '../../../../nodes/HostMedia/actions/router';
import { HostRegistry } from '../../../../nodes/HostRegistry/HostRegistry.node';
import { resources as registryResources } from '../../../../nodes/HostRegistry/actions/router';
import type { NodeResources, Operation } from '../../../../nodes/shared/items/items';
import { runsAsTool } from '../../../../nodes/shared/tools/tool-use';

const shownFor = (property: INodeProperties, resource: string, operation: string): boolean =>
	(property.displayOptions?.show?.resource as string[] | undefined)?.includes(resource) === true &&
	(property.displayOptions?.show?.operation as string[] | undefined)?.includes(operation) === true;

describe.each<[string, INodeType, NodeResources]>([
	['Host Cloud', new HostCloud(), cloudResources],
	['Host Media', new HostMedia(), mediaResources],
	['Host Registry', new HostRegistry(), registryResources],
])('%s', (_name, node, resources) => {
	const { properties } = node.description;
	const pairs = Object.entries(resources).flatMap(([resource, { operations }]) =>
		Object.entries(operations).map(([operation, module]) => [resource, operation, module as Operation] as const),
	);
	const optionOf = (resource: string, operation: string): INodePropertyOptions | undefined =>
		properties
			.filter((property) => property.name === 'operation' && (property.displayOptions?.show?.resource as string[]).includes(resource))
			.flatMap((property) => property.options as INodePropertyOptions[])
			.find((option) => option.value === operation);

	test('declares usableAsTool', () => {
		expect(node.description.usableAsTool).toBeTruthy();
	});

	test.each(pairs)('%s → %s: a tool description for a model, or hidden and refused with a reason', (resource, operation, module) => {
		const descriptions = properties.filter((property) => property.name === 'toolDescription' && shownFor(property, resource, operation));
		const hidden = optionOf(resource, operation)?.displayOptions?.hide?.['@tool'];
		if (module.notAsTool) {
			expect(module.notAsTool.length).toBeGreaterThan(40);
			expect(hidden).toEqual([true]);
			expect(descriptions).toEqual([]);
		} else {
			expect(hidden).toBeUndefined();
			expect(descriptions.length).toBeGreaterThanOrEqual(1);
			// More than one only when each is for its own API generation (Host Cloud's v1 and v2): never two at once.
			const generations = descriptions.map((description) => JSON.stringify(description.displayOptions?.show?.['/apiGeneration'] ?? null));
			expect(new Set(generations).size).toBe(descriptions.length);
			for (const description of descriptions) {
				expect(description.displayOptions?.show?.['@tool']).toEqual([true]);
				expect(String(description.default).length).toBeGreaterThan(80);
			}
		}
	});
});

describe('tool mode', () => {
	const context = (type: string, isToolExecution?: boolean) =>
		({
			getNode: () => ({ type }),
			...(isToolExecution === undefined ? {} : { isToolExecution: () => isToolExecution }),
		}) as unknown as IExecuteFunctions;

	test('the MCP Server Trigger’s way: a supply-data context says so', () => {
		expect(runsAsTool(context('n8n-nodes-host.hostCloudTool', true))).toBe(true);
	});

	test('the AI Agent’s way: an ordinary execute context, under the tool type n8n made', () => {
		expect(runsAsTool(context('n8n-nodes-host.hostCloudTool', false))).toBe(true);
	});

	test('a regular node is not a tool', () => {
		expect(runsAsTool(context('n8n-nodes-host.hostCloud', false))).toBe(false);
		expect(runsAsTool(context('n8n-nodes-host.hostMedia'))).toBe(false);
	});
});
