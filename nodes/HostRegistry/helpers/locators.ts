/**
 * The publisher and node pickers (choose from a list or type an ID) and how an item's choice is
 * read. The publisher list offers the credential's publisher (the spec has no "my publishers"
 * listing); the node list reads the chosen publisher's nodes from the registry.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidField } from '../../shared/items/validation';
import { credentialText } from './credential-fields';
import { pathId, publisherId } from './identifiers';

export const publisherLocator: INodeProperties = {
	displayName: 'Publisher',
	name: 'publisher',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	description: 'The publisher to work with. Leave empty to use the Publisher ID of the Host API credential.',
	// Shown under the field: an empty picker must not look like a missing required value.
	hint: 'Optional: empty uses the Publisher ID of the credential',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'The credential’s publisher',
			typeOptions: { searchListMethod: 'searchPublishers' },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'my-publisher',
			hint: 'Lower case, like a username',
		},
	],
};

/** The node picker; `defaultMode` is "id" where the node is not yet in the publisher's list (claiming). */
export function nodeLocator(defaultMode: 'list' | 'id', description: string): INodeProperties {
	return {
		displayName: 'Node',
		name: 'node',
		type: 'resourceLocator',
		default: { mode: defaultMode, value: '' },
		required: true,
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchNodes', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'my-node',
			},
		],
	};
}

/** The value of a resource locator parameter (from the list or typed), or of a plain text. */
export function locatorValue(raw: unknown): string {
	if (raw && typeof raw === 'object' && 'value' in raw) return String((raw as { value: unknown }).value ?? '').trim();
	return raw === undefined || raw === null ? '' : String(raw).trim();
}

/**
 * The publisher the item works on: the one chosen in the node, else the credential's Publisher ID.
 */
export async function chosenPublisher(context: IExecuteFunctions, itemIndex: number): Promise<string> {
	const chosen = locatorValue(context.getNodeParameter('publisher', itemIndex, ''));
	if (chosen) return publisherId(context, itemIndex, 'Publisher', chosen);
	const fallback = await credentialText(context, 'publisherId', itemIndex);
	if (!fallback) {
		throw invalidField(
			context,
			itemIndex,
			'Publisher',
			'is required',
			'Choose or type a publisher ID, or fill in Publisher ID in the Host API credential to use it by default.',
		);
	}
	return publisherId(context, itemIndex, 'Publisher ID (of the Host API credential)', fallback);
}

/** The node the item works on (from the list or typed). */
export function chosenNode(context: IExecuteFunctions, itemIndex: number): string {
	return pathId(context, itemIndex, 'Node', locatorValue(context.getNodeParameter('node', itemIndex, '')));
}
