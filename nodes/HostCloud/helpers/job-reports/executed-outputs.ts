/**
 * The outputs an `executed` progress message reports, gathered by node id: how Execute's watcher
 * and the trigger build a job's outputs from what its socket says.
 */
import type { IDataObject } from 'n8n-workflow';

import { isRecord, ownValue, setOwn } from '../../../shared/items/validation';
import { mergeNodeOutput } from '../files/output-files';

/** Adds the outputs an `executed` message reports to those collected by node id. */
export function collectExecuted(outputs: Record<string, IDataObject>, data: Record<string, unknown>): void {
	// A node id is a name from outside: kept as an own key (`__proto__` included), never "[object Object]".
	const node = data.node ?? data.display_node;
	const nodeId = typeof node === 'string' || typeof node === 'number' ? String(node) : '';
	if (nodeId && isRecord(data.output)) setOwn(outputs, nodeId, mergeNodeOutput(ownValue(outputs, nodeId), data.output as IDataObject));
}
