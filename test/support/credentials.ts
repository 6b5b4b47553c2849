/**
 * Credentials for the engine harness: stored in memory by id, applied the way n8n's own
 * CredentialsHelper applies them (generic `authenticate` blocks resolved as expressions with
 * `$credentials`, or an authenticate function), so a node sees exactly what it would in n8n.
 */
import {
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type ICredentialType,
	type IHttpRequestHelper,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeProperties,
	type IRequestOptionsSimplified,
	type IWorkflowExecuteAdditionalData,
	ICredentialsHelper,
	Workflow,
} from 'n8n-workflow';

export interface StoredCredential {
	id: string;
	name: string;
	type: string;
	data: ICredentialDataDecryptedObject;
}

/** Applies every property of an INodeProperties list's defaults under the given data, as n8n does. */
export function withDefaults(type: ICredentialType, data: ICredentialDataDecryptedObject): ICredentialDataDecryptedObject {
	const out: ICredentialDataDecryptedObject = {};
	for (const property of type.properties) {
		if (property.default !== undefined) out[property.name] = property.default as ICredentialDataDecryptedObject[string];
	}
	return { ...out, ...data };
}

export class HarnessCredentialsHelper extends ICredentialsHelper {
	readonly store = new Map<string, StoredCredential>();

	constructor(private readonly types: Map<string, ICredentialType>) {
		super();
	}

	add(credential: StoredCredential): void {
		this.store.set(credential.id, credential);
	}

	getParentTypes(name: string): string[] {
		const type = this.types.get(name);
		return type?.extends ?? [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const type = this.types.get(typeName);
		const authenticate = type?.authenticate;
		if (!authenticate) return requestOptions as IHttpRequestOptions;
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (authenticate.type !== 'generic') return requestOptions as IHttpRequestOptions;
		const resolve = (value: unknown) => this.resolve(value, credentials, workflow, node);
		const options = requestOptions as IHttpRequestOptions & Record<string, Record<string, unknown> | undefined>;
		for (const [section, values] of Object.entries(authenticate.properties) as Array<[string, Record<string, unknown>]>) {
			const target = (options[section] ??= {}) as Record<string, unknown>;
			for (const [key, value] of Object.entries(values)) target[key] = resolve(value);
		}
		return options;
	}

	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<ICredentials> {
		const stored = this.find(nodeCredentials, type);
		return {
			id: stored.id,
			name: stored.name,
			type: stored.type,
			getData: () => stored.data,
			getDataToSave: () => ({ id: stored.id, name: stored.name, type: stored.type, data: '' }),
			setData: () => undefined,
		} as unknown as ICredentials;
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.find(nodeCredentials, type);
		const credentialType = this.types.get(type);
		return credentialType ? withDefaults(credentialType, stored.data) : { ...stored.data };
	}

	async updateCredentials(nodeCredentials: INodeCredentialsDetails, type: string, data: ICredentialDataDecryptedObject): Promise<void> {
		this.find(nodeCredentials, type).data = data;
	}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.types.get(type)?.properties ?? [];
	}

	private find(nodeCredentials: INodeCredentialsDetails, type: string): StoredCredential {
		const stored = nodeCredentials.id ? this.store.get(nodeCredentials.id) : undefined;
		if (!stored || stored.type !== type) {
			throw new Error(`Credentials "${nodeCredentials.name}" of type "${type}" are not stored in the harness`);
		}
		return stored;
	}

	/** Resolves `={{...}}` values with `$credentials` in scope, through n8n's expression engine. */
	private resolve(value: unknown, credentials: ICredentialDataDecryptedObject, workflow?: Workflow, node?: INode): unknown {
		if (typeof value !== 'string' || !value.startsWith('=')) return value;
		if (!workflow || !node) throw new Error('Generic credential authentication needs the workflow and node');
		return workflow.expression.getSimpleParameterValue(node, value, 'internal', { $credentials: credentials }, undefined, '');
	}
}
