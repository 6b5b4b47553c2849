import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { inputBinary } from '../../../shared/binary/binary';
import { checkedParameter, fieldProperty, type FieldDefinition } from '../../../shared/items/fields';
import { invalidField } from '../../../shared/items/validation';
import { PUBLISHING_TOKEN, requiredToken } from '../../helpers/credential-fields';
import { semanticVersion } from '../../helpers/identifiers';
import { chosenNode, chosenPublisher } from '../../helpers/locators';
import { archiveSize, uploadArchive } from '../../transport/archive-upload';
import { publishVersion } from '../../transport/registry-api';
import { collectionBody, type FieldCollection } from '../../helpers/field-collections';
import {
	CHANGELOG_FIELD,
	DEPRECATED_FIELD,
	fieldCollectionProperty,
	NODE_FIELDS,
	nodeLocator,
	publisherLocator,
	stringListField,
	SUPPORTED_ACCELERATORS,
	SUPPORTED_HOSTUI_FRONTEND_VERSION,
	SUPPORTED_HOSTUI_VERSION,
	SUPPORTED_OS,
	TAGS,
} from '../common.descriptions';

const VERSION: FieldDefinition = {
	name: 'version',
	displayName: 'Version',
	kind: 'string',
	required: true,
	placeholder: '1.0.0',
	description: 'Semantic version number of the new version (MAJOR.MINOR.PATCH). Each number can be published once per node.',
	check: semanticVersion,
};

const ARCHIVE_FIELD: FieldDefinition = {
	name: 'binaryPropertyName',
	displayName: 'Input Binary Field',
	kind: 'string',
	required: true,
	default: 'data',
	hint: 'The name of the input binary field holding the version archive (a .zip file)',
	description: "The archive is uploaded to the registry's storage right after the version is created",
};

/** NodeVersion fields a publisher sets when publishing (downloadUrl and the status are set by the registry). */
const VERSION_FIELDS: FieldDefinition[] = [
	CHANGELOG_FIELD,
	stringListField(
		'dependencies',
		'dependencies',
		'Dependencies',
		'Packages the node needs, one per entry (for example numpy>=1.24)',
		'numpy',
	),
	DEPRECATED_FIELD,
	SUPPORTED_ACCELERATORS,
	SUPPORTED_HOSTUI_FRONTEND_VERSION,
	SUPPORTED_HOSTUI_VERSION,
	SUPPORTED_OS,
	TAGS,
];

const VERSION_FIELDS_COLLECTION: FieldCollection = { name: 'versionFields', label: 'Version Fields', fields: VERSION_FIELDS };

const NODE_FIELDS_COLLECTION: FieldCollection = {
	name: 'nodeFields',
	label: 'Node Fields',
	description: 'Details of the node, updated along with the new version (or set on a new node)',
	fields: NODE_FIELDS,
};

const properties: INodeProperties[] = [
	publisherLocator,
	nodeLocator('list', 'The node to publish a version of. Type a new ID to publish a new node.'),
	fieldProperty(VERSION),
	fieldProperty(ARCHIVE_FIELD),
	fieldCollectionProperty(VERSION_FIELDS_COLLECTION),
	fieldCollectionProperty(NODE_FIELDS_COLLECTION),
];

export const description = updateDisplayOptions({ show: { resource: ['nodeVersion'], operation: ['publish'] } }, properties);

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool =
	"Publish uploads the version's archive from the binary data of an earlier node, which a tool call does not have, and a release is better made by a workflow you run on purpose.";

/** The input item's archive, checked before anything is sent. */
async function archiveOf(context: IExecuteFunctions, itemIndex: number): Promise<{ archive: IBinaryData; bytes: number }> {
	const field = ARCHIVE_FIELD.displayName;
	const property = checkedParameter(context, itemIndex, ARCHIVE_FIELD) as string;
	const archive = inputBinary(context, itemIndex, property);
	if (!archive) {
		const present = Object.keys(context.getInputData()[itemIndex]?.binary ?? {});
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
	const version = checkedParameter(this, itemIndex, VERSION) as string;
	const versionFields = collectionBody(this, itemIndex, VERSION_FIELDS_COLLECTION);
	const nodeFields = collectionBody(this, itemIndex, NODE_FIELDS_COLLECTION);
	const { archive, bytes } = await archiveOf(this, itemIndex);
	const publishingToken = await requiredToken(this, itemIndex, PUBLISHING_TOKEN);

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
