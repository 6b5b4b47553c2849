import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { runSelectedOperation, type NodeResources } from '../../shared/items/items';
import * as image from './image';
import * as music from './music';
import * as video from './video';

/** Every resource and operation of the dropdowns, and the module that runs it. */
export const resources = { image, video, music } satisfies NodeResources;

/** Picks the operation module from the resource and operation dropdowns. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await runSelectedOperation(this, resources);
}
