import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runPerItem, type ItemOperation } from '../../shared/items';
import * as image from './image';
import * as music from './music';
import * as video from './video';

const resources: Record<string, Record<string, { execute: ItemOperation }>> = {
	image: image.operations,
	video: video.operations,
	music: music.operations,
};

/** Picks the operation module from the resource and operation dropdowns. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const selected = resources[resource]?.[operation];
	if (!selected) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of resource "${resource}" is not supported`);
	}
	return [await runPerItem(this, selected.execute)];
}
