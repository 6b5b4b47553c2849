/**
 * The ids of area B, checked before they go into a path: publisher ids (lower case, like a
 * username), node ids, version ids, and semantic version numbers.
 */
import { type CheckContext, invalidField, pathSegmentText, quoted, requiredText } from '../../shared/items/validation';

/** semver.org's grammar: MAJOR.MINOR.PATCH, optional pre-release and build parts, no leading zeros. */
const SEMANTIC_VERSION =
	/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$/;

export function isSemanticVersion(value: string): boolean {
	return SEMANTIC_VERSION.test(value);
}

/** A semantic version such as 1.2.3 or 2.0.0-beta.1. */
export function semanticVersion(context: CheckContext, itemIndex: number, field: string, value: unknown): string {
	const version = requiredText(context, itemIndex, field, value);
	if (isSemanticVersion(version)) return version;
	const withoutV = version.replace(/^v/i, '');
	const hint =
		withoutV !== version && isSemanticVersion(withoutV)
			? `Remove the leading "v": use "${withoutV}".`
			: 'Use MAJOR.MINOR.PATCH numbers, such as 1.0.0, 1.2.3 or 2.0.0-beta.1.';
	throw invalidField(context, itemIndex, field, `must be a semantic version such as 1.2.3 (got ${quoted(version)})`, hint);
}

/** A publisher id: lower case, like a username, with no spaces or slashes. */
export function publisherId(context: CheckContext, itemIndex: number, field: string, value: unknown): string {
	const id = pathSegmentText(context, itemIndex, field, value);
	if (id !== id.toLowerCase()) {
		throw invalidField(
			context,
			itemIndex,
			field,
			`must be lower case (got ${quoted(id)})`,
			`Publisher IDs are lower case, like a username: use "${id.toLowerCase()}".`,
		);
	}
	if (/[\s/]/.test(id)) {
		throw invalidField(
			context,
			itemIndex,
			field,
			`must not contain spaces or "/" (got ${quoted(id)})`,
			'Publisher IDs are one word, like a username.',
		);
	}
	return id;
}

/** A node or version id that goes into a path: present, one word, no slashes. */
export function pathId(context: CheckContext, itemIndex: number, field: string, value: unknown): string {
	const id = pathSegmentText(context, itemIndex, field, value);
	if (/[\s/]/.test(id)) throw invalidField(context, itemIndex, field, `must not contain spaces or "/" (got ${quoted(id)})`);
	return id;
}
