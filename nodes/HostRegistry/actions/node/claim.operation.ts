import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { hostRequest } from '../../../shared/transport';
import { invalidField } from '../../../shared/validation';
import { chosenNode, chosenPublisher, registryPath } from '../../helpers/identifiers';
import { nodeLocator, publisherLocator } from '../../helpers/locators';

const properties: INodeProperties[] = [
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
	const credentials = await this.getCredentials('hostApi', itemIndex);
	const repohostToken = String(credentials.repohostToken ?? '').trim();
	if (!repohostToken) {
		throw invalidField(
			this,
			itemIndex,
			'Code-Hosting Token (of the Host API credential)',
			'is required to claim a node',
			"Open the Host API credential and fill in Code-Hosting Token with a token of the account that owns the node's repository.",
		);
	}
	const answer = await hostRequest<IDataObject | string>(this, 'hostApi', {
		method: 'POST',
		path: `${registryPath('publishers', publisherId, 'nodes', nodeId)}/claim-my-node`,
		body: { REPOHOST_TOKEN: repohostToken },
		secrets: [repohostToken],
		itemIndex,
		action: `claiming node "${nodeId}" for publisher "${publisherId}"`,
		statusAdvice: {
			401: {
				headline: 'The access token or the code-hosting token was rejected',
				hint: 'Check the Access Token and the Code-Hosting Token in the Host API credential.',
			},
			403: {
				headline: 'The claim was refused',
				hint: "The Code-Hosting Token must belong to the account that owns the node's repository, and you must be a member of the publisher.",
			},
			409: { headline: 'The node is already claimed', hint: 'Only unclaimed nodes can be claimed.' },
		},
	});
	const said = typeof answer === 'string' ? { message: answer } : (answer ?? {});
	return [{ json: { ...said, claimed: true, publisher_id: publisherId, node_id: nodeId }, pairedItem: { item: itemIndex } }];
}
