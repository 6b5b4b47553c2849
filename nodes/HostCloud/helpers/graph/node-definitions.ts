/**
 * The server's node definitions (`GET /api/object_info`), read at most once per node run (or per
 * dropdown listing in the editor) and shared by everything that needs them: finding partner nodes
 * and converting UI-format workflows. The answer is large, so it is never read twice.
 */
import type { IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';

import { readNodeDefinitions } from '../../transport/cloud-api';
import type { NodeDefinitions } from './class-definitions';

const readsByRun = new WeakMap<object, Promise<NodeDefinitions>>();

/** The definitions of this run's server: the first caller reads them, later callers share that read. */
export function nodeDefinitions(context: IExecuteFunctions | ILoadOptionsFunctions, itemIndex = 0): Promise<NodeDefinitions> {
	let read = readsByRun.get(context);
	if (!read) {
		read = readNodeDefinitions(context, itemIndex) as Promise<NodeDefinitions>;
		// A read started early may fail before anyone waits for it: that is reported where it is awaited.
		read.catch(() => undefined);
		readsByRun.set(context, read);
	}
	return read;
}

/** The definitions, or undefined (with a warning in n8n's log) when they cannot be read: for what has a fallback. */
export async function nodeDefinitionsIfReadable(context: IExecuteFunctions, itemIndex: number): Promise<NodeDefinitions | undefined> {
	try {
		return await nodeDefinitions(context, itemIndex);
	} catch (error) {
		context.logger?.warn?.(`Host Cloud: could not read node definitions to find partner nodes: ${(error as Error).message}`);
		return undefined;
	}
}
