/**
 * What the server's node definitions (`/api/object_info`, read by `node-definitions.ts`) say about
 * a class, the fields the package reads: the inputs a UI-format workflow is converted with, and
 * whether a class is a partner node (billed through the platform key in extra_data).
 */
import type { WorkflowGraph } from './workflow-graph';

/**
 * Partner nodes call external AI services and are billed through the platform key in
 * extra_data (api_key_host_org on the cloud, api_key_comfy_org on an upstream server). The cloud's
 * node definitions mark them (`api_node: true`); this list is the fallback when the definitions
 * cannot be read or do not know a class.
 */
export const PARTNER_CLASS_PREFIXES = [
	'Partner',
	'OpenAI',
	'Ideogram',
	'FluxPro',
	'FluxKontextPro',
	'FluxKontextMax',
	'Kling',
	'Luma',
	'Minimax',
	'Pika',
	'Pixverse',
	'Recraft',
	'Stability',
	'Veo',
	'Runway',
	'Gemini',
	'Tripo',
	'Rodin',
	'Moonvalley',
	'Vidu',
	'ByteDance',
];

/**
 * What the node definitions (`/api/object_info`) say about one class, the fields that matter here:
 * partner nodes, and the inputs a UI-format workflow is converted with.
 */
export interface ClassDefinition {
	api_node?: unknown;
	python_module?: unknown;
	display_name?: unknown;
	output?: unknown;
	input?: { required?: Record<string, unknown>; optional?: Record<string, unknown>; hidden?: Record<string, unknown> };
	input_order?: { required?: unknown; optional?: unknown };
}

export type NodeDefinitions = Record<string, ClassDefinition>;

/** True when a definition marks its class as a partner node. */
export function definitionIsPartner(definition: ClassDefinition | undefined): boolean | undefined {
	if (!definition) return undefined;
	if (definition.api_node === true) return true;
	if (typeof definition.python_module === 'string' && /(^|\.)[a-z_]*api_nodes(\.|$)/.test(definition.python_module)) return true;
	const hidden = definition.input?.hidden;
	// The cloud names the hidden key input api_key_host_org; upstream servers name it api_key_comfy_org.
	const keyInput = ([name, kind]: [string, unknown]) =>
		/^api_key_(host|comfy)_org$/.test(name) || /^API_KEY_(HOST|COMFY)_ORG$/.test(String(kind));
	if (hidden && Object.entries(hidden).some(keyInput)) return true;
	return false;
}

/** Whether a graph has partner nodes, by the definitions where they know the class, else by the fallback list. */
export function hasPartnerNodes(graph: WorkflowGraph, definitions?: Record<string, ClassDefinition>): boolean {
	return Object.values(graph).some((node) => {
		const known = definitionIsPartner(definitions?.[node.class_type]);
		if (known !== undefined) return known;
		return PARTNER_CLASS_PREFIXES.some((prefix) => node.class_type.startsWith(prefix));
	});
}

/** Whether the fallback list alone already finds a partner node (no need to read the definitions). */
export function hasKnownPartnerNodes(graph: WorkflowGraph): boolean {
	return Object.values(graph).some((node) => PARTNER_CLASS_PREFIXES.some((prefix) => node.class_type.startsWith(prefix)));
}
