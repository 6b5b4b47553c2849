/**
 * Publisher, Node and NodeVersion as the spec describes them (section "Entities"): each field the
 * spec types is checked where the registry's answer has it, an entity without its `id` is none,
 * and a status must be one of the spec's words. An answer that is not such an entity fails the
 * item, saying which field is wrong; one that is, is passed on with each text kept to a bound.
 */
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { clipTextsDeep, SERVICE_TEXT_MAX_CHARS } from '../../shared/transport/service-values';
import { isRecord, ownValue, quoted } from '../../shared/items/validation';

type FieldType = 'string' | 'strings' | 'integer' | 'number' | 'boolean' | 'object' | 'objects' | readonly string[];

export type EntityKind = 'Publisher' | 'Node' | 'NodeVersion';

const PUBLISHER_STATUSES = ['PublisherStatusActive', 'PublisherStatusBanned'] as const;
const NODE_STATUSES = ['NodeStatusActive', 'NodeStatusDeleted', 'NodeStatusBanned'] as const;
const VERSION_STATUSES = [
	'NodeVersionStatusActive',
	'NodeVersionStatusDeleted',
	'NodeVersionStatusBanned',
	'NodeVersionStatusPending',
	'NodeVersionStatusFlagged',
] as const;

/** What a Node and a NodeVersion both say of where they run and how they are tagged. */
const SUPPORT_AND_TAGS: Record<string, FieldType> = {
	supported_accelerators: 'strings',
	supported_hostui_frontend_version: 'string',
	supported_hostui_version: 'string',
	supported_os: 'strings',
	tags: 'strings',
	tags_admin: 'strings',
};

/** The fields the spec types, by entity (fields it does not list are passed on unchecked, clipped). */
const FIELDS: Record<EntityKind, Record<string, FieldType>> = {
	Publisher: {
		id: 'string',
		name: 'string',
		description: 'string',
		logo: 'string',
		createdAt: 'string',
		members: 'objects',
		source_code_repo: 'string',
		status: PUBLISHER_STATUSES,
		support: 'string',
		website: 'string',
	},
	Node: {
		id: 'string',
		name: 'string',
		author: 'string',
		description: 'string',
		banner_url: 'string',
		icon: 'string',
		category: 'string',
		created_at: 'string',
		downloads: 'integer',
		repohost_stars: 'integer',
		latest_version: 'object',
		license: 'string',
		preempted_host_node_names: 'strings',
		publisher: 'object',
		rating: 'number',
		repository: 'string',
		search_ranking: 'integer',
		status: NODE_STATUSES,
		status_detail: 'string',
		...SUPPORT_AND_TAGS,
		translations: 'object',
	},
	NodeVersion: {
		id: 'string',
		node_id: 'string',
		version: 'string',
		changelog: 'string',
		host_node_extract_status: 'string',
		createdAt: 'string',
		dependencies: 'strings',
		deprecated: 'boolean',
		downloadUrl: 'string',
		status: VERSION_STATUSES,
		status_reason: 'string',
		...SUPPORT_AND_TAGS,
	},
};

/** Entities nested in another, checked as such. */
const NESTED: Partial<Record<string, EntityKind>> = { latest_version: 'NodeVersion', publisher: 'Publisher' };

/** Longest text kept of a registry answer (descriptions and changelogs are a few paragraphs). */
const TEXT_MAX_CHARS = 4 * SERVICE_TEXT_MAX_CHARS;

function typeProblem(type: FieldType, value: unknown): string | undefined {
	if (Array.isArray(type)) {
		if (typeof value === 'string' && (type as readonly string[]).includes(value)) return undefined;
		return `is not one of the API's words (${type.join(', ')})`;
	}
	const ok =
		type === 'string'
			? typeof value === 'string'
			: type === 'strings'
				? Array.isArray(value) && value.every((entry) => typeof entry === 'string')
				: type === 'integer'
					? Number.isInteger(value)
					: type === 'number'
						? typeof value === 'number' && Number.isFinite(value)
						: type === 'boolean'
							? typeof value === 'boolean'
							: type === 'object'
								? isRecord(value)
								: Array.isArray(value) && value.every(isRecord);
	return ok ? undefined : `is not ${WORDS[type as Exclude<FieldType, readonly string[]>]}`;
}

const WORDS: Record<Exclude<FieldType, readonly string[]>, string> = {
	string: 'text',
	strings: 'a list of texts',
	integer: 'a whole number',
	number: 'a number',
	boolean: 'true or false',
	object: 'an object',
	objects: 'a list of objects',
};

/** What is wrong with `value` as a `kind`, naming the field (`publisher.id`), or undefined. */
export function entityProblem(kind: EntityKind, value: unknown, at = ''): string | undefined {
	if (!isRecord(value)) return `${at || 'the answer'} is not an object`;
	if (typeof ownValue(value, 'id') !== 'string') return `${at}id is missing or not text`;
	for (const [field, type] of Object.entries(FIELDS[kind])) {
		const given = ownValue(value, field);
		// A field the registry leaves out (or sends as null) is one it has nothing for.
		if (given === undefined || given === null) continue;
		const problem = typeProblem(type, given);
		if (problem) return `${at}${field} ${problem}`;
		const nested = NESTED[field];
		if (nested) {
			const inner = entityProblem(nested, given, `${at}${field}.`);
			if (inner) return inner;
		}
	}
	return undefined;
}

/** Which entity a call asked about: each field given must match the answer's where the answer names it. */
export type ExpectedIdentity = Partial<Record<'id' | 'node_id' | 'version', string>>;

/** Field names as a user reads them in an error. */
const IDENTITY_WORDS: Record<keyof ExpectedIdentity, string> = { id: 'ID', node_id: 'node ID', version: 'version' };

/** How the answer names another entity than the one asked (`its node ID is "x", not "y"`), or undefined. */
export function identityProblem(value: IDataObject, expected: ExpectedIdentity): string | undefined {
	for (const [field, asked] of Object.entries(expected) as Array<[keyof ExpectedIdentity, string | undefined]>) {
		const given = ownValue(value, field);
		// A field the answer leaves out names nothing; one it gives must be the one asked (ids are exact names).
		if (asked === undefined || given === undefined || given === null || given === asked) continue;
		return `its ${IDENTITY_WORDS[field]} is ${quoted(given)}, not ${quoted(asked)} as asked`;
	}
	return undefined;
}

/** What an error says was done: a write may have been made (in the caller's words when given), a read may be tried again. */
function afterWords(writes: boolean | string | undefined): string {
	if (typeof writes === 'string') return ` ${writes}`;
	return writes ? ' The change may have been made all the same: check it in the registry.' : ' Try again later.';
}

/**
 * `value` as a `kind` the item may carry (its texts clipped), or an error naming the field that is
 * wrong, or saying which other entity the answer is about when it names another than `expected`.
 */
export function checkedEntity<T extends IDataObject>(
	context: IExecuteFunctions | ILoadOptionsFunctions,
	kind: EntityKind,
	value: unknown,
	call: { action: string; itemIndex?: number; writes?: boolean | string; expected?: ExpectedIdentity },
): T {
	const problem = entityProblem(kind, value);
	const other = problem || !call.expected ? undefined : identityProblem(value as IDataObject, call.expected);
	if (problem || other) {
		const message = problem
			? `The registry's answer while ${call.action} is not a ${kind} as the API describes it: ${problem}`
			: `The registry's answer while ${call.action} is about another ${kind}: ${other}`;
		const description = `Nothing was read from this answer.${afterWords(call.writes)}`;
		throw new NodeApiError(context.getNode(), { message }, { message, itemIndex: call.itemIndex, description });
	}
	return clipTextsDeep(value as T, TEXT_MAX_CHARS);
}
