/**
 * The publisher and node pickers: choose from a list or type an ID. The publisher list offers the
 * credential's publisher (the spec has no "my publishers" listing); the node list reads the chosen
 * publisher's nodes from the registry.
 */
import type { INodeProperties } from 'n8n-workflow';

export const publisherLocator: INodeProperties = {
	displayName: 'Publisher',
	name: 'publisher',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	description: 'The publisher to work with. Leave empty to use the Publisher ID of the Host API credential.',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
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
