/**
 * The editable fields of Publisher, Node and NodeVersion as the spec types them, each defined once
 * with nodes/shared/fields.ts (its parameter and its check come from the same definition), and the
 * collections that offer them (read by `helpers/field-collections.ts`). Fields the registry sets itself (createdAt, downloads, rating,
 * latest_version, downloadUrl, status_reason ...) and admin-only fields (tags_admin) are not offered.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { collectionProperty, type FieldCheck, type FieldDefinition } from '../../shared/items/fields';
import { invalidField } from '../../shared/items/validation';
import type { FieldCollection } from '../helpers/field-collections';

/** A list of texts in the body, one per entry. */
export const stringListField = (
	name: string,
	api: string,
	displayName: string,
	description: string,
	placeholder: string,
): FieldDefinition => ({
	name,
	api,
	displayName,
	kind: 'stringList',
	description,
	placeholder,
});

const descriptionField = (description: string): FieldDefinition => ({
	name: 'description',
	api: 'description',
	displayName: 'Description',
	kind: 'string',
	rows: 3,
	description,
});

/** Name in a collection: optional to add, never blank once added. */
const nameField = (description: string): FieldDefinition => ({
	name: 'name',
	api: 'name',
	displayName: 'Name',
	kind: 'string',
	required: true,
	description,
});

export const TAGS = stringListField('tags', 'tags', 'Tags', 'Labels that help people find it in the registry', 'image');
export const SUPPORTED_ACCELERATORS = stringListField(
	'supportedAccelerators',
	'supported_accelerators',
	'Supported Accelerators',
	'Hardware it runs on, one per entry (for example cuda, cpu, mps)',
	'cuda',
);
export const SUPPORTED_OS = stringListField(
	'supportedOs',
	'supported_os',
	'Supported Operating Systems',
	'One per entry (for example windows, macos, linux)',
	'linux',
);
export const SUPPORTED_HOSTUI_VERSION: FieldDefinition = {
	name: 'supportedHostuiVersion',
	api: 'supported_hostui_version',
	displayName: 'Supported HostUI Version',
	kind: 'string',
	placeholder: '>=0.3.0',
	description: 'Versions of HostUI it works with',
};
export const SUPPORTED_HOSTUI_FRONTEND_VERSION: FieldDefinition = {
	name: 'supportedHostuiFrontendVersion',
	api: 'supported_hostui_frontend_version',
	displayName: 'Supported HostUI Frontend Version',
	kind: 'string',
	placeholder: '>=1.2.0',
	description: 'Versions of the HostUI frontend it works with',
};

export const CHANGELOG_FIELD: FieldDefinition = {
	name: 'changelog',
	api: 'changelog',
	displayName: 'Changelog',
	kind: 'string',
	rows: 4,
	description: 'Summary of the changes in this version',
};

export const DEPRECATED_FIELD: FieldDefinition = {
	name: 'deprecated',
	api: 'deprecated',
	displayName: 'Deprecated',
	kind: 'boolean',
	description: 'Whether this version is deprecated, so users are told to move to another version',
};

/** The fixedCollection's entries as the spec's members: id, role, user {id, name, email}; empty parts left out. */
const membersValue: FieldCheck = (context, itemIndex, label, value) => {
	const entries = (value as { member?: unknown } | undefined)?.member;
	if (entries === undefined) return [];
	if (!Array.isArray(entries)) throw invalidField(context, itemIndex, label, 'must be a list of members');
	return entries.map((entry: IDataObject) => {
		const member: IDataObject = {};
		const user: IDataObject = {};
		if (entry.id) member.id = String(entry.id);
		if (entry.role) member.role = String(entry.role);
		if (entry.userId) user.id = String(entry.userId);
		if (entry.userName) user.name = String(entry.userName);
		if (entry.userEmail) user.email = String(entry.userEmail);
		if (Object.keys(user).length) member.user = user;
		return member;
	});
};

export const MEMBERS_FIELD: FieldDefinition = {
	name: 'members',
	api: 'members',
	displayName: 'Members',
	kind: 'custom',
	placeholder: 'Add Member',
	description: 'Members of the publisher and their roles. The registry manages membership itself and may ignore this list.',
	parameter: {
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: {},
		options: [
			{
				displayName: 'Member',
				name: 'member',
				values: [
					{ displayName: 'Member ID', name: 'id', type: 'string', default: '', description: 'ID of the membership, if you know it' },
					{
						displayName: 'Role',
						name: 'role',
						type: 'string',
						default: '',
						placeholder: 'owner',
						description: 'Role of the member in the publisher',
					},
					{ displayName: 'User Email', name: 'userEmail', type: 'string', placeholder: 'name@email.com', default: '' },
					{ displayName: 'User ID', name: 'userId', type: 'string', default: '', description: 'ID of the user account' },
					{ displayName: 'User Name', name: 'userName', type: 'string', default: '' },
				],
			},
		],
	},
	check: membersValue,
};

/** Publisher fields other than the ID and the name (Create asks for the name on its own). */
export const PUBLISHER_FIELDS: FieldDefinition[] = [
	descriptionField('What the publisher is about'),
	{
		name: 'logo',
		api: 'logo',
		displayName: 'Logo URL',
		kind: 'url',
		placeholder: 'https://example.com/logo.png',
		description: 'Address of the publisher logo image',
	},
	MEMBERS_FIELD,
	{
		name: 'sourceCodeRepo',
		api: 'source_code_repo',
		displayName: 'Source Code Repository',
		kind: 'string',
		placeholder: 'https://github.com/my-org',
		description: 'Where the publisher keeps its source code',
	},
	{
		name: 'status',
		api: 'status',
		displayName: 'Status',
		kind: 'options',
		options: [
			{ name: 'Active', value: 'PublisherStatusActive' },
			{ name: 'Banned', value: 'PublisherStatusBanned' },
		],
		default: 'PublisherStatusActive',
		description: 'Normally set by the registry moderators; the registry may ignore it',
	},
	{
		name: 'support',
		api: 'support',
		displayName: 'Support',
		kind: 'string',
		placeholder: 'support@example.com',
		description: 'Where users get help: an email address or a URL',
	},
	{ name: 'website', api: 'website', displayName: 'Website', kind: 'string', placeholder: 'https://example.com' },
];

/** Publisher fields a publisher update can change. */
export const PUBLISHER_UPDATE_FIELDS: FieldDefinition[] = [...PUBLISHER_FIELDS, nameField('Display name of the publisher')];

/** Node fields (Node Update, and the node part of Publish). */
export const NODE_FIELDS: FieldDefinition[] = [
	{ name: 'author', api: 'author', displayName: 'Author', kind: 'string', description: 'Who wrote the node' },
	{
		name: 'bannerUrl',
		api: 'banner_url',
		displayName: 'Banner URL',
		kind: 'url',
		placeholder: 'https://example.com/banner.png',
		description: 'Address of a banner image',
	},
	{
		name: 'category',
		api: 'category',
		displayName: 'Category (Deprecated)',
		kind: 'string',
		description: 'Deprecated: the registry will remove this field. Use Tags instead.',
	},
	descriptionField('What the node does'),
	{
		name: 'icon',
		api: 'icon',
		displayName: 'Icon URL',
		kind: 'url',
		placeholder: 'https://example.com/icon.png',
		description: 'Address of the node icon',
	},
	{
		name: 'license',
		api: 'license',
		displayName: 'License',
		kind: 'string',
		placeholder: 'LICENSE',
		description: 'Path of the LICENSE file in the repository',
	},
	nameField('Display name of the node'),
	stringListField(
		'preemptedNodeNames',
		'preempted_host_node_names',
		'Preempted Node Names',
		'Names of other nodes this node replaces',
		'OldNodeName',
	),
	{
		name: 'repository',
		api: 'repository',
		displayName: 'Repository URL',
		kind: 'url',
		placeholder: 'https://github.com/my-org/my-node',
		description: 'Address of the code repository',
	},
	SUPPORTED_ACCELERATORS,
	SUPPORTED_HOSTUI_FRONTEND_VERSION,
	SUPPORTED_HOSTUI_VERSION,
	SUPPORTED_OS,
	TAGS,
	{
		name: 'translations',
		api: 'translations',
		displayName: 'Translations (JSON)',
		kind: 'jsonObject',
		description: 'Node metadata in other languages, as a JSON object',
	},
];

/** A collection parameter of body fields (read by `helpers/field-collections.ts`). */
export function fieldCollectionProperty(collection: FieldCollection): INodeProperties {
	const property = collectionProperty(collection.name, collection.label, collection.fields);
	return collection.description ? { ...property, description: collection.description } : property;
}

/** The publisher and node pickers: choose from a list or type an ID (read by `helpers/locators.ts`). */
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
