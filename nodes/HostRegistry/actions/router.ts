import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { runSelectedOperation } from '../../shared/items';
import * as node from './node';
import * as nodeVersion from './nodeVersion';
import * as publisher from './publisher';

const resources = { node, nodeVersion, publisher };

/** Picks the operation module from the resource and operation dropdowns. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await runSelectedOperation(this, resources);
}
