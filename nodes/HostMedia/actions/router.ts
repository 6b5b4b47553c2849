import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { runSelectedOperation } from '../../shared/items';
import * as image from './image';
import * as music from './music';
import * as video from './video';

const resources = { image, video, music };

/** Picks the operation module from the resource and operation dropdowns. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await runSelectedOperation(this, resources);
}
