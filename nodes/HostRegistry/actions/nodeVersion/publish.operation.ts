import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { invalidField, requiredText } from '../../../shared/validation';
import { bodyFromFields, nodeFieldOptions, versionFieldOptions } from '../../helpers/fields';
import { chosenNode, chosenPublisher, semanticVersion } from '../../helpers/identifiers';
import { nodeLocator, publisherLocator } from '../../helpers/locators';
import { archiveSize, uploadArchive } from '../../transport/archive-upload';
import { publishVersion } from '../../transport/registry-api';

const properties: INodeProperties[] = [
	publisherLocator,
	nodeLocator('list', 'The node to publish a version of. Type a new ID to publish a new node.'),
	{
		displayName: 'Version',
		name: 'version',
		type: 'string',
		required: true,
		default: '',
		placeholder: '1.0.0',
		description: 'Semantic version number of the new version (MAJOR.MINOR.PATCH). Each number can be published once per node.',
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the input binary field holding the version archive (a .zip file)',
		description: "The archive is uploaded to the registry's storage right after the version is created",
	},
	{
		displayName: 'Version Fields',
		name: 'versionFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: versionFieldOptions,
	},
	{
		displayName: 'Node Fields',
		name: 'nodeFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Details of the node, updated along with the new version (or set on a new node)',
		options: nodeFieldOptions,
	},
];

export const description = updateDisplayOptions({ show: { resource: ['nodeVersion'], operation: ['publish'] } }, properties);

/** The input item's archive, checked before anything is sent. */
async function archiveOf(context: IExecuteFunctions, itemIndex: number): Promise<{ archive: IBinaryData; bytes: number }> {
	const field = 'Input Binary Field';
	const property = requiredText(context, itemIndex, field, context.getNodeParameter('binaryPropertyName', itemIndex, 'data'));
	const binary = context.getInputData()[itemIndex]?.binary ?? {};
	const archive = binary[property];
	if (!archive) {
		const present = Object.keys(binary);
		throw invalidField(
			context,
			itemIndex,
			field,
			`names "${property}", but the input item has no binary field of that name`,
			present.length
				? `The item's binary fields are: ${present.join(', ')}. Enter the one that holds the .zip archive.`
				: 'The item has no binary data. Read the archive first, e.g. with a "Read/Write Files from Disk" or an "HTTP Request" node.',
		);
	}
	const bytes = await archiveSize(context, itemIndex, archive);
	if (bytes === 0)
		throw invalidField(
			context,
			itemIndex,
			field,
			`names "${property}", which holds an empty file`,
			'Attach the .zip archive of the version.',
		);
	return { archive, bytes };
}

/**
 * Creates the version (with the publishing token of the credential), then uploads the archive to
 * the signed URL the registry answers. The output is the NodeVersion with the upload result.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const publisherId = await chosenPublisher(this, itemIndex);
	const nodeId = chosenNode(this, itemIndex);
	const version = semanticVersion(this, itemIndex, 'Version', this.getNodeParameter('version', itemIndex));
	const versionFields = bodyFromFields(
		this,
		itemIndex,
		'Version Fields',
		this.getNodeParameter('versionFields', itemIndex, {}) as IDataObject,
	);
	const nodeFields = bodyFromFields(this, itemIndex, 'Node Fields', this.getNodeParameter('nodeFields', itemIndex, {}) as IDataObject);
	const { archive, bytes } = await archiveOf(this, itemIndex);
	const credentials = await this.getCredentials('hostApi', itemIndex);
	const publishingToken = String(credentials.publishingToken ?? '').trim();
	if (!publishingToken) {
		throw invalidField(
			this,
			itemIndex,
			'Publishing Token (of the Host API credential)',
			'is required to publish a version',
			'Open the Host API credential and fill in Publishing Token with a personal access token of the publisher.',
		);
	}

	const { nodeVersion, signedUrl } = await publishVersion(
		this,
		publisherId,
		nodeId,
		{ node: nodeFields, nodeVersion: { ...versionFields, version }, personalAccessToken: publishingToken },
		itemIndex,
	);
	const versionId = String(nodeVersion.id ?? 'unknown');
	const created = `Version ${version} of node "${nodeId}" was created (version ID ${versionId})`;
	if (!signedUrl) {
		throw new NodeOperationError(this.getNode(), `${created}, but the registry gave no address to upload its archive to`, {
			itemIndex,
			description: 'The version stays pending without its archive. Publish the archive as a new version number.',
		});
	}

	const upload = await uploadArchive(this, itemIndex, signedUrl, archive, bytes);
	if (!upload.uploaded) {
		throw new NodeOperationError(this.getNode(), `${created}, but its archive was not uploaded: ${upload.reason ?? 'unknown error'}`, {
			itemIndex,
			description:
				'The version stays pending until its archive arrives, and the registry accepts each version number once: publish the archive again as a new version number.',
		});
	}
	return [{ json: { ...nodeVersion, upload: { ...upload } as IDataObject }, pairedItem: { item: itemIndex } }];
}
