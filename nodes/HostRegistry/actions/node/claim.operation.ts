import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { REPOHOST_TOKEN, requiredToken } from '../../helpers/credential-fields';
import { chosenNode, chosenPublisher } from '../../helpers/locators';
import { claimNode } from '../../transport/registry-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { nodeLocator, publisherLocator } from '../common.descriptions';

const TOOL_DESCRIPTION =
	"Claims an unclaimed node of the Host node registry for a publisher, proving with the account's code-hosting token that the caller owns the node's repository. Answers the registry's confirmation.";

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	{
		displayName:
			"Claiming proves you own the node's code repository with the Code-Hosting Token of the Host API credential. It works for unclaimed nodes only.",
		name: 'claimNotice',
		type: 'notice',
		default: '',
	},
	publisherLocator,
	nodeLocator('id', 'The unclaimed node to move to your publisher'),
];

export const description = updateDisplayOptions({ show: { resource: ['node'], operation: ['claim'] } }, properties);

/** POST .../claim-my-node with REPOHOST_TOKEN from the credential; the token never leaves the request. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const publisherId = await chosenPublisher(this, itemIndex);
	const nodeId = chosenNode(this, itemIndex);
	const repohostToken = await requiredToken(this, itemIndex, REPOHOST_TOKEN);
	const said = await claimNode(this, publisherId, nodeId, repohostToken, itemIndex);
	return [{ json: { ...said, claimed: true, publisher_id: publisherId, node_id: nodeId }, pairedItem: { item: itemIndex } }];
}
