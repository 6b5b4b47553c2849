import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { hostRequest } from '../../../shared/transport';
import { invalidField, requiredText } from '../../../shared/validation';
import { archiveSize, uploadArchive } from '../../helpers/archive-upload';
import { bodyFromFields, nodeFieldOptions, versionFieldOptions } from '../../helpers/fields';
import { chosenNode, chosenPublisher, registryPath, semanticVersion } from '../../helpers/identifiers';
import { nodeLocator, publisherLocator } from '../../helpers/locators';

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
 * POST .../versions (node, node_version, personal_access_token from the credential), then PUT the
 * archive to the signed URL it answers. The output is the NodeVersion with the upload result.
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

	const answer = await hostRequest<{ node_version?: IDataObject; signedUrl?: unknown }>(this, 'hostApi', {
		method: 'POST',
		path: `${registryPath('publishers', publisherId, 'nodes', nodeId)}/versions`,
		body: {
			node: { ...nodeFields, id: nodeId },
			node_version: { ...versionFields, version },
			personal_access_token: publishingToken,
		},
		secrets: [publishingToken],
		itemIndex,
		action: `publishing version ${version} of node "${nodeId}"`,
		statusAdvice: {
			403: {
				headline: 'Publishing was refused',
				hint: 'Check the Publishing Token in the Host API credential (a personal access token of this publisher) and that the node belongs to this publisher.',
			},
			409: { headline: 'This version already exists', hint: 'Each version number can be published once: raise the Version.' },
		},
	});
	const nodeVersion = answer?.node_version ?? {};
	const versionId = String(nodeVersion.id ?? 'unknown');
	const created = `Version ${version} of node "${nodeId}" was created (version ID ${versionId})`;
	if (typeof answer?.signedUrl !== 'string' || answer.signedUrl === '') {
		throw new NodeOperationError(this.getNode(), `${created}, but the registry gave no address to upload its archive to`, {
			itemIndex,
			description: 'The version stays pending without its archive. Publish the archive as a new version number.',
		});
	}

	const upload = await uploadArchive(this, itemIndex, answer.signedUrl, archive, bytes);
	if (!upload.uploaded) {
		throw new NodeOperationError(this.getNode(), `${created}, but its archive was not uploaded: ${upload.reason ?? 'unknown error'}`, {
			itemIndex,
			description:
				'The version stays pending until its archive arrives, and the registry accepts each version number once: publish the archive again as a new version number.',
		});
	}
	return [{ json: { ...nodeVersion, upload: { ...upload } as IDataObject }, pairedItem: { item: itemIndex } }];
}
