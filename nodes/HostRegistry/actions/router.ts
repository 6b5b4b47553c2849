import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ItemOperation } from '../../shared/items';
import { runPerItem } from '../../shared/items';
import * as node from './node';
import * as nodeVersion from './nodeVersion';
import * as publisher from './publisher';

const resources = { node, nodeVersion, publisher } as const;

type Resource = keyof typeof resources;

/** Picks the operation module from the resource and operation dropdowns. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as Resource;
	const operation = this.getNodeParameter('operation', 0) as string;
	const operations = resources[resource]?.operations as Record<string, { execute: ItemOperation }> | undefined;
	const selected = operations?.[operation];
	if (!selected) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of resource "${resource}" is not supported`);
	}
	return [await runPerItem(this, selected.execute)];
}
