/**
 * Registry data shapes (Publisher, Node, NodeVersion as the spec names their fields), its fixed
 * names, and the input rules it applies to them: id formats, semantic versions, which fields a
 * caller may set.
 */
import type { Upload } from '../shared/storage';

/** Token every new publisher can publish with (hook addPersonalAccessToken adds more). */
export const DEFAULT_PUBLISHING_TOKEN = 'sim-publishing-token';
/** Unclaimed nodes sit under this admin publisher (the real registry does the same); it has no members. */
export const UNCLAIMED_PUBLISHER_ID = 'admin-unclaimed';
export const DEFAULT_PAGE_LIMIT = 10;
/** Host of the simulated code-hosting service in repository URLs. */
export const REPOHOST_ORIGIN = 'https://repohost.example';

export type PublisherStatus = 'PublisherStatusActive' | 'PublisherStatusBanned';
export type NodeStatus = 'NodeStatusActive' | 'NodeStatusDeleted' | 'NodeStatusBanned';
export type NodeVersionStatus =
	| 'NodeVersionStatusActive'
	| 'NodeVersionStatusDeleted'
	| 'NodeVersionStatusBanned'
	| 'NodeVersionStatusPending'
	| 'NodeVersionStatusFlagged';

export interface PublisherMember {
	id: string;
	role: string;
	user: { id: string; name: string; email: string };
}

export interface Publisher {
	id: string;
	name: string;
	description?: string;
	logo?: string;
	createdAt: string;
	members: PublisherMember[];
	source_code_repo?: string;
	status: PublisherStatus;
	support?: string;
	website?: string;
}

export interface NodeVersion {
	id: string;
	node_id: string;
	version: string;
	changelog?: string;
	host_node_extract_status?: string;
	createdAt: string;
	dependencies?: string[];
	deprecated: boolean;
	downloadUrl: string;
	status: NodeVersionStatus;
	status_reason?: string;
	supported_accelerators?: string[];
	supported_hostui_frontend_version?: string;
	supported_hostui_version?: string;
	supported_os?: string[];
	tags?: string[];
	tags_admin?: string[];
}

export interface RegistryNode {
	id: string;
	name: string;
	author?: string;
	description?: string;
	banner_url?: string;
	icon?: string;
	category?: string;
	created_at: string;
	downloads: number;
	repohost_stars: number;
	latest_version?: NodeVersion;
	license?: string;
	preempted_host_node_names?: string[];
	publisher: Publisher;
	rating: number;
	repository?: string;
	search_ranking: number;
	status: NodeStatus;
	status_detail?: string;
	supported_accelerators?: string[];
	supported_hostui_frontend_version?: string;
	supported_hostui_version?: string;
	supported_os?: string[];
	tags: string[];
	tags_admin?: string[];
	translations?: Record<string, unknown>;
}

export interface ArchiveUpload extends Upload {
	/** Whether the archive was PUT with Content-Type application/zip (what makes the version active). */
	isZip: boolean;
}

/** A refusal the handlers throw; the route wrapper turns it into `{error, message}`. */
export class RegistryError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
	) {
		super(message);
	}
}

type FieldKind = 'string' | 'string[]' | 'boolean' | 'object';

/** Fields a publisher member may set with PUT /publishers/{id} (and on create). */
export const PUBLISHER_FIELDS: Record<string, FieldKind> = {
	name: 'string',
	description: 'string',
	logo: 'string',
	source_code_repo: 'string',
	support: 'string',
	website: 'string',
};

/** Node fields a member may set; output fields (downloads, rating, status, publisher ...) are not here. */
export const NODE_FIELDS: Record<string, FieldKind> = {
	name: 'string',
	description: 'string',
	author: 'string',
	license: 'string',
	icon: 'string',
	banner_url: 'string',
	repository: 'string',
	tags: 'string[]',
	category: 'string',
	preempted_host_node_names: 'string[]',
	supported_accelerators: 'string[]',
	supported_hostui_frontend_version: 'string',
	supported_hostui_version: 'string',
	supported_os: 'string[]',
	translations: 'object',
};

/** NodeVersion fields taken from a publish request; id, status, downloadUrl and the like are set by the registry. */
export const VERSION_FIELDS: Record<string, FieldKind> = {
	changelog: 'string',
	dependencies: 'string[]',
	deprecated: 'boolean',
	supported_accelerators: 'string[]',
	supported_hostui_frontend_version: 'string',
	supported_hostui_version: 'string',
	supported_os: 'string[]',
	tags: 'string[]',
};

/** The only two fields PUT .../versions/{versionId} changes. */
export const VERSION_UPDATE_FIELDS: Record<string, FieldKind> = {
	changelog: 'string',
	deprecated: 'boolean',
};

/** Lower case letters, digits and hyphens, starting with a letter or digit. */
export const PUBLISHER_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** Node ids are lower case too; dots and underscores appear in real node ids. */
export const NODE_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,99}$/;

// A numeric pre-release identifier has no leading zeros (semver 2.0.0 rule 9); build parts may.
const PRERELEASE_ID = '(?:0|[1-9]\\d*|\\d*[A-Za-z-][0-9A-Za-z-]*)';
const SEMVER_PATTERN = new RegExp(
	`^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-${PRERELEASE_ID}(\\.${PRERELEASE_ID})*)?(\\+[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?$`,
);

/** MAJOR.MINOR.PATCH with optional pre-release and build parts; a leading "v" is not semantic versioning. */
export function isSemver(value: unknown): value is string {
	return typeof value === 'string' && SEMVER_PATTERN.test(value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasKind(value: unknown, kind: FieldKind): boolean {
	if (kind === 'string[]') return Array.isArray(value) && value.every((v) => typeof v === 'string');
	if (kind === 'object') return isPlainObject(value);
	return typeof value === kind;
}

/**
 * Copies the allowed fields present in `body`, checking their types; other keys are ignored the way
 * the real service ignores output fields. null counts as "not given". `where` prefixes field names
 * in messages (e.g. "node_version.changelog").
 */
export function pickFields(body: Record<string, unknown>, allowed: Record<string, FieldKind>, where: string): Record<string, unknown> {
	const picked: Record<string, unknown> = {};
	for (const [field, kind] of Object.entries(allowed)) {
		const value = body[field];
		if (value === undefined || value === null) continue;
		if (!hasKind(value, kind)) {
			throw new RegistryError(400, 'invalid_field', `${where}${field} must be ${describeKind(kind)}.`);
		}
		picked[field] = value;
	}
	return picked;
}

function describeKind(kind: FieldKind): string {
	if (kind === 'string[]') return 'an array of strings';
	if (kind === 'object') return 'an object';
	return `a ${kind}`;
}

/**
 * Owner (lower-cased, as code-host names are case-insensitive) of a repository URL such as
 * https://repohost.example/<owner>/<name>(.git) on the given code host; undefined otherwise.
 */
export function repositoryOwner(url: string | undefined, repohostOrigin: string): string | undefined {
	if (!url) return undefined;
	try {
		const parsed = new URL(url);
		if (parsed.host.toLowerCase() !== new URL(repohostOrigin).host) return undefined;
		const segments = parsed.pathname.split('/').filter(Boolean);
		return segments.length >= 2 ? segments[0].toLowerCase() : undefined;
	} catch {
		return undefined;
	}
}

/** A page or per-page count: a whole number of 1 or more (the spec gives no upper bound); 400 naming the parameter otherwise. */
export function positiveIntParam(raw: string | null, name: string, fallback: number): number {
	if (raw === null) return fallback;
	const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
	if (!Number.isSafeInteger(value) || value < 1) {
		throw new RegistryError(400, 'invalid_query', `${name} must be a whole number of 1 or more (got "${raw}").`);
	}
	return value;
}

/** include_banned=true|false (case-insensitive); absent means false. */
export function booleanParam(raw: string | null, name: string): boolean {
	if (raw === null) return false;
	const text = raw.trim().toLowerCase();
	if (text === 'true') return true;
	if (text === 'false') return false;
	throw new RegistryError(400, 'invalid_query', `${name} must be true or false (got "${raw}").`);
}
