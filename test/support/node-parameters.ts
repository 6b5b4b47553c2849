/**
 * Reads a node's own description the way the editor does: its resources, their operations, and
 * which parameters (and collection options) show for a choice. The bad-input sweep walks these, so
 * an operation or field added to a node is swept without touching the tests.
 */
import type { INodeProperties, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';

export type Parameters = Record<string, unknown>;

/** A field the sweep can set: top level, or an option inside a collection (`in`). */
export interface Field {
	property: INodeProperties;
	in?: INodeProperties;
	/** Where the display name of the field shows in a message ("Creativity", or "Max Wait (Minutes)"). */
	displayName: string;
}

function optionValues(property: INodeProperties | undefined): string[] {
	return ((property?.options ?? []) as INodePropertyOptions[]).map((option) => String(option.value));
}

/** `@version` conditions as n8n writes them: a list of versions, or `{_cnd: {gte|lte|eq: n}}`. */
function versionMatches(conditions: unknown[], version: number): boolean {
	return conditions.some((condition) => {
		if (typeof condition === 'number') return condition === version;
		const cnd = (condition as { _cnd?: Record<string, number> })._cnd ?? {};
		return Object.entries(cnd).every(([op, n]) => (op === 'gte' ? version >= n : op === 'lte' ? version <= n : version === n));
	});
}

/** Whether `property` shows for `parameters` (unset ones at their defaults) in `version` of the node. */
export function shows(description: INodeTypeDescription, property: INodeProperties, parameters: Parameters, version: number): boolean {
	// A collection option's rule may name a top-level parameter by its root path ("/apiGeneration").
	const valueOf = (path: string): unknown => {
		const name = path.replace(/^\//, '');
		return name in parameters
			? parameters[name]
			: description.properties.find((p) => p.name === name && shows(description, p, parameters, version))?.default;
	};
	const test = (rules: Record<string, unknown[] | undefined> | undefined, wanted: boolean): boolean =>
		Object.entries(rules ?? {}).every(([name, allowed]) => {
			const hit = name === '@version' ? versionMatches(allowed ?? [], version) : (allowed ?? []).includes(valueOf(name) as never);
			return hit === wanted;
		});
	const options = property.displayOptions;
	return (
		test(options?.show as never, true) &&
		(options?.hide ? Object.keys(options.hide).length === 0 || test(options.hide as never, false) : true)
	);
}

export function latestVersion(description: INodeTypeDescription): number {
	const version = description.defaultVersion ?? description.version;
	return Array.isArray(version) ? Math.max(...version) : version;
}

/** Every [resource, operation] of the node's dropdowns (a node without them is one operation: ['', '']). */
export function operationsOf(description: INodeTypeDescription): Array<[string, string]> {
	const version = latestVersion(description);
	const resourceProperty = description.properties.find((p) => p.name === 'resource');
	if (!resourceProperty) return [['', '']];
	return optionValues(resourceProperty).flatMap((resource) => {
		const operation = description.properties.find((p) => p.name === 'operation' && shows(description, p, { resource }, version));
		return optionValues(operation).map((value): [string, string] => [resource, value]);
	});
}

/** The top-level parameters showing for `parameters` (a collection is replaced by its options). */
export function visibleFields(description: INodeTypeDescription, parameters: Parameters): Field[] {
	const version = latestVersion(description);
	const fields: Field[] = [];
	for (const property of description.properties) {
		if (property.name === 'resource' || property.name === 'operation' || !shows(description, property, parameters, version)) continue;
		if (property.type === 'collection') {
			for (const option of (property.options ?? []) as INodeProperties[]) {
				// An option hidden here (one for the other API generation) is dropped by n8n: no field of this run.
				if (!shows(description, option, parameters, version)) continue;
				fields.push({ property: option, in: property, displayName: option.displayName });
			}
		} else {
			fields.push({ property, displayName: property.displayName });
		}
	}
	return fields;
}

/** `parameters` with `value` set for `field` (inside its collection, which keeps its other options). */
export function withField(parameters: Parameters, field: Field, value: unknown): Parameters {
	if (!field.in) return { ...parameters, [field.property.name]: value };
	const collection = (parameters[field.in.name] ?? {}) as Parameters;
	return { ...parameters, [field.in.name]: { ...collection, [field.property.name]: value } };
}

/** The values an options field allows (empty for other types). */
export const allowedValues = (field: Field): string[] => optionValues(field.property);
