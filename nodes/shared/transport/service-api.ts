/**
 * What the transport needs to know of a service's API. The node that calls a service writes this
 * description in its own transport (Host Media and Host Registry share theirs, `host-api.ts`), so
 * the transport and its error messages name no service: the credential type, where a request
 * goes, which secrets to keep out, and what the service's answers mean.
 */
import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

/** What does a node's work and may fetch files: an execution, a resume webhook, or a trigger listening for jobs. */
export type RunContext = IExecuteFunctions | IWebhookFunctions | ITriggerFunctions;

export type HostContext = RunContext | ILoadOptionsFunctions;

/** What a status means, as a message says it: a headline, and what the user can do about it. */
export interface StatusAdvice {
	headline: string;
	hint: string;
}

/** How the error messages of a service speak of it. */
export interface ServiceErrorTerms {
	/** The credential's secret, as the messages name it ("API key", "access token"). */
	keyName: string;
	/** Who answered, at the start of a sentence ("The service", "Your server"). */
	answeredBy: string;
	/** What a status means there, where it differs from the general meaning. */
	statusAdvice?: Partial<Record<number, StatusAdvice>>;
	/** Lines an error body holds beyond its message (a refused workflow's nodes); they replace its details. */
	detailLines?: (body: Record<string, unknown>) => string[];
	/** The machine-readable code an error body carries, for a service that types its errors (v2's `error.code`). */
	errorCode?: (body: Record<string, unknown>) => unknown;
	/** What each code means there: it takes the place of the status's meaning. */
	codeAdvice?: Readonly<Record<string, StatusAdvice>>;
}

/** Where the requests made with one credential go, and how their errors speak. */
export interface ServiceTarget {
	/** The address request paths follow, without a trailing slash. */
	baseUrl: string;
	errors: ServiceErrorTerms;
}

export interface ServiceApi {
	/** The n8n credential type the requests are made with. */
	credentialType: string;
	/** The credential's secrets, kept out of everything the service sends back. */
	secretsOf(credentials: ICredentialDataDecryptedObject): string[];
	/** Where the requests go; throws, before anything is sent, when the credential cannot be used. */
	target(context: HostContext, credentials: ICredentialDataDecryptedObject, itemIndex: number): ServiceTarget;
}
