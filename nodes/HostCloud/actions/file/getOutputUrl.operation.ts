import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { toolDescriptionProperty } from '../../../shared/tool-use';
import { fileAddressFor } from '../../helpers/files/output-files';
import { fileReferenceProperties, readFileReference } from '../../helpers/files/file-fields';

const TOOL_DESCRIPTION =
	'Returns a fresh download URL of an output file of a finished Host Cloud job, given its filename (and subfolder and type, as the job listed them): {"filename", "subfolder", "type", "mime_type", "url"}. The URL is a temporary link (the service does not say for how long): fetch it or pass it on soon.';

export const description = updateDisplayOptions({ show: { resource: ['file'], operation: ['getOutputUrl'] } }, [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	...fileReferenceProperties,
]);

/** GET /api/view: the signed download URL of a file (temporary; anyone holding it can download). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const ref = readFileReference(this, itemIndex);
	const url = await fileAddressFor(this, ref, { itemIndex, check: true });
	return [{ json: { filename: ref.filename, subfolder: ref.subfolder, type: ref.type, mime_type: ref.mime_type, url } }];
}
