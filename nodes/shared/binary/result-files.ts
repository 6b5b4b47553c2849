/**
 * "Give me the files", the same in Host Cloud (from node version 3) and Host Media: "Download
 * Files" (`downloadFiles`, on by default, as n8n's own image nodes return binary data), and "Put
 * Files in Field" (`binaryPropertyName`, `data`): the first file goes to `data`, the next ones to
 * `data_1`, `data_2`… Either way the item lists every file with its URL. A tool call never
 * downloads: a model cannot use binary data.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { binaryFieldName } from '../items/validation';

export const DOWNLOAD_FILES = 'Download Files';
export const PUT_FILES_IN_FIELD = 'Put Files in Field';
export const DEFAULT_FILES_FIELD = 'data';

/** Whether and where to put the result files. */
export interface ResultFiles {
	download: boolean;
	binaryPropertyName: string;
}

/** The binary field of the file at `index` (from 0): `name`, then `name_1`, `name_2`… */
export const binaryFieldFor = (name: string, index: number): string => (index === 0 ? name : `${name}_${index}`);

/** Reads and checks "Download Files" and "Put Files in Field" of an item, before anything is sent. */
export function readResultFiles(context: IExecuteFunctions, itemIndex: number): ResultFiles {
	const download = context.getNodeParameter('downloadFiles', itemIndex, true) as boolean;
	const binaryPropertyName = download
		? binaryFieldName(
				context,
				itemIndex,
				PUT_FILES_IN_FIELD,
				context.getNodeParameter('binaryPropertyName', itemIndex, DEFAULT_FILES_FIELD),
			)
		: DEFAULT_FILES_FIELD;
	return { download, binaryPropertyName };
}
