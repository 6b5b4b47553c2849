/**
 * Fields of the Host API credential the node reads itself: the default Publisher ID, and the
 * tokens a request carries in its body. Those tokens are secrets, so they come from password
 * fields of the credential, never from a node parameter a workflow would show.
 */
import type { IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';

import { invalidField } from '../../shared/items/validation';

/** A body token of the credential, and what a user must know to fill it in. */
export interface CredentialToken {
	name: 'publishingToken' | 'repohostToken';
	/** Its name in the credential, as messages say it. */
	label: string;
	/** What the token is needed for: "publish a version". */
	neededTo: string;
	/** What to fill in: "a personal access token of the publisher". */
	fillWith: string;
}

export const PUBLISHING_TOKEN: CredentialToken = {
	name: 'publishingToken',
	label: 'Publishing Token',
	neededTo: 'publish a version',
	fillWith: 'a personal access token of the publisher',
};

export const REPOHOST_TOKEN: CredentialToken = {
	name: 'repohostToken',
	label: 'Code-Hosting Token',
	neededTo: 'claim a node',
	fillWith: "a token of the account that owns the node's repository",
};

/** A text field of the credential, trimmed ("" when not filled in). */
export async function credentialText(
	context: IExecuteFunctions | ILoadOptionsFunctions,
	name: 'publisherId' | CredentialToken['name'],
	itemIndex?: number,
): Promise<string> {
	const credentials = await context.getCredentials('hostApi', itemIndex);
	return String(credentials[name] ?? '').trim();
}

/** The token, refused before anything is sent when the credential lacks it. */
export async function requiredToken(context: IExecuteFunctions, itemIndex: number, token: CredentialToken): Promise<string> {
	const value = await credentialText(context, token.name, itemIndex);
	if (!value) {
		throw invalidField(
			context,
			itemIndex,
			`${token.label} (of the Host API credential)`,
			`is required to ${token.neededTo}`,
			`Open the Host API credential and fill in ${token.label} with ${token.fillWith}.`,
		);
	}
	return value;
}
