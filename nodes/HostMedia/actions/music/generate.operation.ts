import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requiredText } from '../../../shared/validation';
import { additionalFields, checkedField, additionalFieldsProperty, type FieldDefinition } from '../../../shared/fields';
import { MusicStreamReader } from '../../helpers/music-stream';
import { streamMusic } from '../../transport/media-api';

const DURATION: FieldDefinition = {
	name: 'duration',
	api: 'duration',
	displayName: 'Duration',
	kind: 'integer',
	// The spec gives no unit or bounds for it: only a whole number is checked.
	min: Number.MIN_SAFE_INTEGER,
	max: Number.MAX_SAFE_INTEGER,
	default: 30,
	description: 'Length of the music (a whole number, usually seconds). The service chooses one when this is not set.',
};

const properties: INodeProperties[] = [
	{
		displayName: 'Prompt',
		name: 'prompt',
		type: 'string',
		default: '',
		required: true,
		typeOptions: { rows: 3 },
		placeholder: 'e.g. calm lofi piano with soft rain',
		description: 'Describes the music to generate',
	},
	{
		displayName: 'Download Audio',
		name: 'downloadAudio',
		type: 'boolean',
		default: true,
		description: 'Whether to return each generated take as an audio file in binary data (otherwise only titles, duration and events)',
	},
	{
		displayName: 'Put Audio in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		description: 'Binary field of each output item that receives the audio file',
		displayOptions: { show: { downloadAudio: [true] } },
	},
	additionalFieldsProperty([DURATION]),
];

export const description = updateDisplayOptions({ show: { resource: ['music'], operation: ['generate'] } }, properties);

/** POST /proxy/music/t2m/generate: one output item per generated take, with its audio file. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const prompt = requiredText(this, itemIndex, 'Prompt (prompt)', this.getNodeParameter('prompt', itemIndex, ''));
	const duration = checkedField(this, itemIndex, DURATION, additionalFields(this, itemIndex).duration) as number | undefined;
	const keepAudio = this.getNodeParameter('downloadAudio', itemIndex, true) as boolean;
	const binaryPropertyName = keepAudio
		? requiredText(this, itemIndex, 'Put Audio in Field', this.getNodeParameter('binaryPropertyName', itemIndex, 'data'))
		: 'data';
	const stream = await streamMusic(this, { prompt, duration }, { itemIndex });
	const takes = await new MusicStreamReader(this, stream, { itemIndex, keepAudio }).read();
	return takes.map((take) => ({
		json: { prompt, ...take.json },
		...(take.binary ? { binary: { [binaryPropertyName]: take.binary } } : {}),
	}));
}
