import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { runSelectedOperation, type NodeResources } from '../../shared/items/items';
import * as file from './file';
import * as queue from './queue';
import * as server from './server';
import * as system from './system';
import * as workflow from './workflow';

/** Every resource and operation of the dropdowns, and the module that runs it. */
export const resources = { workflow, file, queue, server, system } satisfies NodeResources;

/** Picks the operation module from the resource and operation dropdowns. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await runSelectedOperation(this, resources);
}
