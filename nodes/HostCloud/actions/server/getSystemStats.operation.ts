import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkedSystemStats, SERVER_CONTROLS_NOT_ON_V2, selfHostedServer } from '../../helpers/server/controls';
import { readSystemStats } from '../../transport/cloud-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';

export const OPERATION_NAME = 'System Stats';

const properties: INodeProperties[] = [
	toolDescriptionProperty(
		'Reads the self-hosted ComfyUI server’s system stats: {"system": {"os", "ram_total", "ram_free", "comfyui_version", "python_version", "pytorch_version", ...}, "devices": [{"name", "type", "vram_total", "vram_free", ...}]} (memory in bytes). Useful to see how much GPU memory is free before starting a large job. It changes nothing.',
	),
];

export const description = updateDisplayOptions({ show: { resource: ['server'], operation: ['getSystemStats'] } }, properties);

/** A self-hosted server's control, which the v2 API does not offer (`router.ts` refuses it there). */
export const notOnV2 = SERVER_CONTROLS_NOT_ON_V2;

/** GET /api/system_stats: the server's versions, memory and devices, as it sends them (checked, its texts clipped). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	await selfHostedServer(this, OPERATION_NAME, itemIndex);
	const stats = await readSystemStats(this, itemIndex);
	return [{ json: checkedSystemStats(this, stats, itemIndex) }];
}
