/**
 * `harness.items`: the input node of engine tests. It emits the items given as JSON, turning
 * `binaryBase64` entries into real n8n binary data (stored by n8n's binary data service), so the
 * node under test receives items exactly as an earlier node would hand them over.
 */
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

export const ITEMS_NODE_TYPE = 'harness.items';

export interface HarnessItem {
	json: Record<string, unknown>;
	/** property → file to attach as binary data */
	binaryBase64?: Record<string, { data: string; fileName?: string; mimeType?: string }>;
}

export class ItemsNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Harness Items',
		name: 'harnessItems',
		group: ['input'],
		version: 1,
		description: 'Emits the given items',
		defaults: { name: 'Input' },
		inputs: [],
		outputs: ['main'],
		properties: [{ displayName: 'Items', name: 'items', type: 'string', default: '[]' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = JSON.parse(this.getNodeParameter('items', 0) as string) as HarnessItem[];
		const out: INodeExecutionData[] = [];
		for (const [index, item] of items.entries()) {
			const entry: INodeExecutionData = { json: item.json as INodeExecutionData['json'], pairedItem: { item: index } };
			for (const [property, file] of Object.entries(item.binaryBase64 ?? {})) {
				entry.binary ??= {};
				entry.binary[property] = await this.helpers.prepareBinaryData(Buffer.from(file.data, 'base64'), file.fileName, file.mimeType);
			}
			out.push(entry);
		}
		return [out];
	}
}
