import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runPerItem, type ItemOperation } from '../../shared/items';
import * as file from './file';
import * as queue from './queue';
import * as system from './system';
import * as workflow from './workflow';

const resources = { workflow, file, queue, system } as const;

type Resource = keyof typeof resources;

/**
 * An operation handles one item (`execute`), or all items of the run at once (`executeAll`) when
 * they share work: the cloud operations that wait share one WebSocket and run items concurrently.
 */
interface Operation {
	execute?: ItemOperation;
	executeAll?: (this: IExecuteFunctions, items: INodeExecutionData[]) => Promise<INodeExecutionData[]>;
}

/** Picks the operation module from the resource and operation dropdowns. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as Resource;
	const operation = this.getNodeParameter('operation', 0) as string;
	const operations = resources[resource]?.operations as Record<string, Operation> | undefined;
	const selected = operations?.[operation];
	if (selected?.executeAll) return [await selected.executeAll.call(this, this.getInputData())];
	if (!selected?.execute) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of resource "${resource}" is not supported`);
	}
	return [await runPerItem(this, selected.execute)];
}
