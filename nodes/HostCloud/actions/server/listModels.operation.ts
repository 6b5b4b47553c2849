import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { oneOf, pathSegmentText } from '../../../shared/items/validation';
import { namesOf, SERVER_CONTROLS_NOT_ON_V2, selfHostedServer } from '../../helpers/server/controls';
import { readModelFiles, readModelFolders } from '../../transport/cloud-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';

const OPERATION_NAME = 'List Models';
const FOLDER_FIELD = 'Folder';
const SCOPES = ['allFolders', 'folder'] as const;

const properties: INodeProperties[] = [
	toolDescriptionProperty(
		'Lists the models a self-hosted ComfyUI server has. With "All Folders" it answers {"folders": ["checkpoints", "loras", "vae", ...]}; with one folder (such as checkpoints or loras) {"folder", "models": ["v1-5-pruned-emaonly.safetensors", ...]}. Use the names as they are in a workflow (ckpt_name, lora_name...). It changes nothing.',
	),
	{
		displayName: 'List',
		name: 'scope',
		type: 'options',
		options: [
			{ name: 'All Folders', value: 'allFolders', description: 'The names of the model folders (checkpoints, loras, vae…)' },
			{ name: 'One Folder', value: 'folder', description: 'The model files of one folder' },
		],
		default: 'folder',
	},
	{
		displayName: 'Folder Name or ID',
		name: 'folder',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getModelFolders' },
		default: 'checkpoints',
		required: true,
		displayOptions: { show: { scope: ['folder'] } },
		description:
			'The model folder to list, such as checkpoints, loras or vae. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['server'], operation: ['listModels'] } }, properties);

/** A self-hosted server's control, which the v2 API does not offer (`router.ts` refuses it there). */
export const notOnV2 = SERVER_CONTROLS_NOT_ON_V2;

/** The names under `key`, and how many were left out (`<key>_not_listed`) when the listing was over its bounds. */
function listed(key: string, { names, notListed }: { names: string[]; notListed: number }): IDataObject {
	return { [key]: names, ...(notListed > 0 ? { [`${key}_not_listed`]: notListed } : {}) };
}

/** GET /api/models (the folder names) or GET /api/models/{folder} (its files): one item either way, of bounded size. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	await selfHostedServer(this, OPERATION_NAME, itemIndex);
	const scope = oneOf(this, itemIndex, 'List', this.getNodeParameter('scope', itemIndex, 'folder'), SCOPES);
	if (scope === 'allFolders') {
		const folders = namesOf(this, await readModelFolders(this, itemIndex), 'listing the model folders', itemIndex);
		return [{ json: listed('folders', folders) }];
	}
	// One path segment: a folder name with a slash or ".." would ask another route.
	const folder = pathSegmentText(this, itemIndex, FOLDER_FIELD, this.getNodeParameter('folder', itemIndex, ''));
	const answer = await readModelFiles(this, folder, itemIndex);
	const models = namesOf(this, answer, `listing the models of folder "${folder}"`, itemIndex);
	return [{ json: { folder, ...listed('models', models) } }];
}
