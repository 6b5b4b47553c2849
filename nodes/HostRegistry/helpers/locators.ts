/**
 * How an item's choice in the publisher and node pickers (declared in actions/common.descriptions.ts)
 * is read. The publisher list offers the credential's publisher (the spec has no "my publishers"
 * listing); the node list reads the chosen publisher's nodes from the registry.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { invalidField } from '../../shared/items/validation';
import { credentialText } from './credential-fields';
import { pathId, publisherId } from './identifiers';

/** The value of a resource locator parameter (from the list or typed), or of a plain text. */
export function locatorValue(raw: unknown): string {
	if (raw && typeof raw === 'object' && 'value' in raw) return String((raw as { value: unknown }).value ?? '').trim();
	return raw === undefined || raw === null ? '' : String(raw).trim();
}

/**
 * The publisher the item works on: the one chosen in the node, else the credential's Publisher ID.
 */
export async function chosenPublisher(context: IExecuteFunctions, itemIndex: number): Promise<string> {
	const chosen = locatorValue(context.getNodeParameter('publisher', itemIndex, ''));
	if (chosen) return publisherId(context, itemIndex, 'Publisher', chosen);
	const fallback = await credentialText(context, 'publisherId', itemIndex);
	if (!fallback) {
		throw invalidField(
			context,
			itemIndex,
			'Publisher',
			'is required',
			'Choose or type a publisher ID, or fill in Publisher ID in the Host API credential to use it by default.',
		);
	}
	return publisherId(context, itemIndex, 'Publisher ID (of the Host API credential)', fallback);
}

/** The node the item works on (from the list or typed). */
export function chosenNode(context: IExecuteFunctions, itemIndex: number): string {
	return pathId(context, itemIndex, 'Node', locatorValue(context.getNodeParameter('node', itemIndex, '')));
}
