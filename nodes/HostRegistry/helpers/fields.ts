/**
 * The editable fields of Publisher, Node and NodeVersion as the spec types them, and the one
 * function that turns a filled-in collection into the request body. Fields the registry sets itself
 * (createdAt, downloads, rating, latest_version, downloadUrl, status_reason ...) and admin-only
 * fields (tags_admin) are not offered.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import {
	type CheckContext,
	booleanValue,
	httpUrl,
	invalidField,
	jsonObject,
	oneOf,
	requiredText,
	stringList,
} from '../../shared/validation';

type FieldKind = 'text' | 'requiredText' | 'url' | 'list' | 'boolean' | 'json' | 'publisherStatus' | 'members';

interface FieldSpec {
	/** The spec's name of the field in the request body. */
	api: string;
	kind: FieldKind;
	/** Display name, for messages. */
	label: string;
}

/** Collection option name → body field. One table for the three resources; a collection offers a subset. */
const FIELDS: Record<string, FieldSpec> = {
	author: { api: 'author', kind: 'text', label: 'Author' },
	bannerUrl: { api: 'banner_url', kind: 'url', label: 'Banner URL' },
	category: { api: 'category', kind: 'text', label: 'Category (Deprecated)' },
	changelog: { api: 'changelog', kind: 'text', label: 'Changelog' },
	dependencies: { api: 'dependencies', kind: 'list', label: 'Dependencies' },
	deprecated: { api: 'deprecated', kind: 'boolean', label: 'Deprecated' },
	description: { api: 'description', kind: 'text', label: 'Description' },
	icon: { api: 'icon', kind: 'url', label: 'Icon URL' },
	license: { api: 'license', kind: 'text', label: 'License' },
	logo: { api: 'logo', kind: 'url', label: 'Logo URL' },
	members: { api: 'members', kind: 'members', label: 'Members' },
	name: { api: 'name', kind: 'requiredText', label: 'Name' },
	preemptedNodeNames: { api: 'preempted_host_node_names', kind: 'list', label: 'Preempted Node Names' },
	repository: { api: 'repository', kind: 'url', label: 'Repository URL' },
	sourceCodeRepo: { api: 'source_code_repo', kind: 'text', label: 'Source Code Repository' },
	status: { api: 'status', kind: 'publisherStatus', label: 'Status' },
	support: { api: 'support', kind: 'text', label: 'Support' },
	supportedAccelerators: { api: 'supported_accelerators', kind: 'list', label: 'Supported Accelerators' },
	supportedHostuiFrontendVersion: { api: 'supported_hostui_frontend_version', kind: 'text', label: 'Supported HostUI Frontend Version' },
	supportedHostuiVersion: { api: 'supported_hostui_version', kind: 'text', label: 'Supported HostUI Version' },
	supportedOs: { api: 'supported_os', kind: 'list', label: 'Supported Operating Systems' },
	tags: { api: 'tags', kind: 'list', label: 'Tags' },
	translations: { api: 'translations', kind: 'json', label: 'Translations (JSON)' },
	website: { api: 'website', kind: 'text', label: 'Website' },
};

export const PUBLISHER_STATUSES = ['PublisherStatusActive', 'PublisherStatusBanned'] as const;

// ---- field descriptions ---------------------------------------------------------------------

const list = (displayName: string, name: string, description: string, placeholder: string): INodeProperties => ({
	displayName,
	name,
	type: 'string',
	typeOptions: { multipleValues: true, multipleValueButtonText: `Add ${displayName.replace(/s$/, '')}` },
	default: [],
	placeholder,
	description,
});

const description: INodeProperties = {
	displayName: 'Description',
	name: 'description',
	type: 'string',
	typeOptions: { rows: 3 },
	default: '',
};

const tags = list('Tags', 'tags', 'Labels that help people find it in the registry', 'image');
const supportedAccelerators = list(
	'Supported Accelerators',
	'supportedAccelerators',
	'Hardware it runs on, one per entry (for example cuda, cpu, mps)',
	'cuda',
);
const supportedOs = list('Supported Operating Systems', 'supportedOs', 'One per entry (for example windows, macos, linux)', 'linux');
const supportedHostuiVersion: INodeProperties = {
	displayName: 'Supported HostUI Version',
	name: 'supportedHostuiVersion',
	type: 'string',
	default: '',
	placeholder: '>=0.3.0',
	description: 'Versions of HostUI it works with',
};
const supportedHostuiFrontendVersion: INodeProperties = {
	displayName: 'Supported HostUI Frontend Version',
	name: 'supportedHostuiFrontendVersion',
	type: 'string',
	default: '',
	placeholder: '>=1.2.0',
	description: 'Versions of the HostUI frontend it works with',
};

export const changelogField: INodeProperties = {
	displayName: 'Changelog',
	name: 'changelog',
	type: 'string',
	typeOptions: { rows: 4 },
	default: '',
	description: 'Summary of the changes in this version',
};

export const deprecatedField: INodeProperties = {
	displayName: 'Deprecated',
	name: 'deprecated',
	type: 'boolean',
	default: false,
	description: 'Whether this version is deprecated, so users are told to move to another version',
};

/** Publisher fields other than the ID; `withName` adds Name (on update, where it is optional). */
export function publisherFieldOptions(withName: boolean): INodeProperties[] {
	const name: INodeProperties = {
		displayName: 'Name',
		name: 'name',
		type: 'string',
		default: '',
		description: 'Display name of the publisher',
	};
	return [
		{ ...description, description: 'What the publisher is about' },
		{
			displayName: 'Logo URL',
			name: 'logo',
			type: 'string',
			default: '',
			placeholder: 'https://example.com/logo.png',
			description: 'Address of the publisher logo image',
		},
		{
			displayName: 'Members',
			name: 'members',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			default: {},
			placeholder: 'Add Member',
			description: 'Members of the publisher and their roles. The registry manages membership itself and may ignore this list.',
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
		...(withName ? [name] : []),
		{
			displayName: 'Source Code Repository',
			name: 'sourceCodeRepo',
			type: 'string',
			default: '',
			placeholder: 'https://github.com/my-org',
			description: 'Where the publisher keeps its source code',
		},
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			options: [
				{ name: 'Active', value: 'PublisherStatusActive' },
				{ name: 'Banned', value: 'PublisherStatusBanned' },
			],
			default: 'PublisherStatusActive',
			description: 'Normally set by the registry moderators; the registry may ignore it',
		},
		{
			displayName: 'Support',
			name: 'support',
			type: 'string',
			default: '',
			placeholder: 'support@example.com',
			description: 'Where users get help: an email address or a URL',
		},
		{ displayName: 'Website', name: 'website', type: 'string', default: '', placeholder: 'https://example.com' },
	];
}

/** Node fields (Node Update, and the node part of Publish). */
export const nodeFieldOptions: INodeProperties[] = [
	{ displayName: 'Author', name: 'author', type: 'string', default: '', description: 'Who wrote the node' },
	{
		displayName: 'Banner URL',
		name: 'bannerUrl',
		type: 'string',
		default: '',
		placeholder: 'https://example.com/banner.png',
		description: 'Address of a banner image',
	},
	{
		displayName: 'Category (Deprecated)',
		name: 'category',
		type: 'string',
		default: '',
		description: 'Deprecated: the registry will remove this field. Use Tags instead.',
	},
	{ ...description, description: 'What the node does' },
	{
		displayName: 'Icon URL',
		name: 'icon',
		type: 'string',
		default: '',
		placeholder: 'https://example.com/icon.png',
		description: 'Address of the node icon',
	},
	{
		displayName: 'License',
		name: 'license',
		type: 'string',
		default: '',
		placeholder: 'LICENSE',
		description: 'Path of the LICENSE file in the repository',
	},
	{ displayName: 'Name', name: 'name', type: 'string', default: '', description: 'Display name of the node' },
	list('Preempted Node Names', 'preemptedNodeNames', 'Names of other nodes this node replaces', 'OldNodeName'),
	{
		displayName: 'Repository URL',
		name: 'repository',
		type: 'string',
		default: '',
		placeholder: 'https://github.com/my-org/my-node',
		description: 'Address of the code repository',
	},
	supportedAccelerators,
	supportedHostuiFrontendVersion,
	supportedHostuiVersion,
	supportedOs,
	tags,
	{
		displayName: 'Translations (JSON)',
		name: 'translations',
		type: 'json',
		default: '{}',
		description: 'Node metadata in other languages, as a JSON object',
	},
];

/** NodeVersion fields a publisher sets when publishing (downloadUrl and the status are set by the registry). */
export const versionFieldOptions: INodeProperties[] = [
	changelogField,
	list('Dependencies', 'dependencies', 'Packages the node needs, one per entry (for example numpy>=1.24)', 'numpy'),
	deprecatedField,
	supportedAccelerators,
	supportedHostuiFrontendVersion,
	supportedHostuiVersion,
	supportedOs,
	tags,
];

// ---- request bodies -------------------------------------------------------------------------

/** A web address; an empty value clears the field. */
function urlValue(context: CheckContext, itemIndex: number, label: string, value: unknown): string {
	const text = typeof value === 'string' ? value.trim() : String(value ?? '').trim();
	return text === '' ? '' : httpUrl(context, itemIndex, label, text);
}

function membersValue(context: CheckContext, itemIndex: number, value: unknown): IDataObject[] {
	const entries = (value as { member?: unknown } | undefined)?.member;
	if (entries === undefined) return [];
	if (!Array.isArray(entries)) throw invalidField(context, itemIndex, 'Members', 'must be a list of members');
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
}

function fieldValue(context: CheckContext, itemIndex: number, spec: FieldSpec, label: string, value: unknown): unknown {
	switch (spec.kind) {
		case 'requiredText':
			return requiredText(context, itemIndex, label, value);
		case 'url':
			return urlValue(context, itemIndex, label, value);
		case 'list':
			return stringList(context, itemIndex, label, value);
		case 'boolean':
			return booleanValue(context, itemIndex, label, value);
		case 'json':
			return jsonObject(context, itemIndex, label, value);
		case 'publisherStatus':
			return oneOf(context, itemIndex, label, value, PUBLISHER_STATUSES);
		case 'members':
			return membersValue(context, itemIndex, value);
		default:
			return typeof value === 'string' ? value : String(value ?? '');
	}
}

/**
 * The body fields for a filled-in collection, under the spec's names, each value checked.
 * `collection` is the collection's display name, so a message says where the field is.
 */
export function bodyFromFields(context: CheckContext, itemIndex: number, collection: string, fields: IDataObject): IDataObject {
	const body: IDataObject = {};
	for (const [name, value] of Object.entries(fields ?? {})) {
		const spec = FIELDS[name];
		if (!spec || value === undefined || value === null) continue;
		body[spec.api] = fieldValue(context, itemIndex, spec, `${spec.label} (in ${collection})`, value) as IDataObject[string];
	}
	return body;
}

/** Refuses an update with nothing to change, before a request is sent. */
export function requireSomeFields(context: CheckContext, itemIndex: number, collection: string, body: IDataObject): void {
	if (Object.keys(body).length === 0) {
		throw invalidField(context, itemIndex, collection, 'is empty', `Add at least one field to ${collection} to say what to change.`);
	}
}
