/**
 * `properties.proxyWidgets` of a subgraph instance, read as the editor reads it: a list of entries
 * `[inner node id, widget name]`, `[…, source node id]` or `[…, source node id or null, { value }]`,
 * all strings, or that list as JSON text. One entry of another shape and the editor drops the whole
 * list, so the values are never matched to the wrong entries.
 */
import { isRecord } from '../../../shared/items/validation';

export type ProxyEntry = [nodeId: string, widgetName: string];

export type ProxyList = { entries: ProxyEntry[] } | { refused: string } | undefined;

const isText = (value: unknown): value is string => typeof value === 'string';

/** Why an entry is not one the editor reads, or undefined when it is. */
function entryProblem(entry: unknown): string | undefined {
	if (!Array.isArray(entry)) return 'it is not a list';
	const [nodeId, name, source, state] = entry as unknown[];
	if (!isText(nodeId) || !isText(name)) return 'its node id and widget name are not both text';
	if (entry.length === 2) return undefined;
	if (entry.length === 3 && isText(source)) return undefined;
	if (entry.length === 4 && (isText(source) || source === null) && isRecord(state) && state.value !== undefined) return undefined;
	return `it has ${entry.length} parts, not 2, 3 or 4 of the editor's forms`;
}

/** The host's list, or why the editor ignores it, or undefined when the host has none. */
export function readProxyWidgets(properties: Record<string, unknown>): ProxyList {
	let raw = properties.proxyWidgets;
	if (raw === undefined) return undefined;
	if (typeof raw === 'string') {
		try {
			raw = JSON.parse(raw) as unknown;
		} catch {
			return { refused: 'it is text that is not JSON' };
		}
	}
	if (!Array.isArray(raw)) return { refused: 'it is not a list' };
	for (const [position, entry] of raw.entries()) {
		const problem = entryProblem(entry);
		if (problem) return { refused: `entry ${position + 1}: ${problem}` };
	}
	return { entries: raw.map((entry) => [(entry as string[])[0], (entry as string[])[1]]) };
}
