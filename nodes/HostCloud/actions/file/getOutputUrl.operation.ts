import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { fileAddressFor } from '../../helpers/output-files';
import { fileReferenceProperties, readFileReference } from '../../helpers/file-fields';

export const description = updateDisplayOptions({ show: { resource: ['file'], operation: ['getOutputUrl'] } }, fileReferenceProperties);

/** GET /api/view: the signed download URL of a file (temporary; anyone holding it can download). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const ref = readFileReference(this, itemIndex);
	const url = await fileAddressFor(this, ref, { itemIndex, check: true });
	return [{ json: { filename: ref.filename, subfolder: ref.subfolder, type: ref.type, mime_type: ref.mime_type, url } }];
}
