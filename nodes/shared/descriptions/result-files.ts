/** The result-file parameters of `../result-files.ts`, the same in Host Cloud (version 3 on), Host Media and the trigger. */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { DEFAULT_FILES_FIELD, DOWNLOAD_FILES, PUT_FILES_IN_FIELD } from '../binary/result-files';
import { NOT_AS_TOOL } from './tool-options';

type Show = NonNullable<IDisplayOptions['show']>;

/** "Download Files" and "Put Files in Field", shown where `show` says (never in a tool call). */
export function resultFilesProperties(show: Show, what = 'the generated files'): INodeProperties[] {
	return [
		{
			displayName: DOWNLOAD_FILES,
			name: 'downloadFiles',
			type: 'boolean',
			default: true,
			description: `Whether to download ${what} into binary data. Either way the item lists every file with its URL.`,
			displayOptions: { show, ...NOT_AS_TOOL },
		},
		{
			displayName: PUT_FILES_IN_FIELD,
			name: 'binaryPropertyName',
			type: 'string',
			default: DEFAULT_FILES_FIELD,
			description: 'Binary field for the first file; further files go to data_1, data_2 and so on (with this name instead of "data")',
			displayOptions: { show: { ...show, downloadFiles: [true] }, ...NOT_AS_TOOL },
		},
	];
}
