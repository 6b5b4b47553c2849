/**
 * What a caller asks of a request to a service (`hostRequest`, in `transport.ts`), and what it gets
 * back: the options of one call, each saying what it changes in how the transport sends, retries,
 * waits and reads.
 */
import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';

export interface HostRequest {
	method: IHttpRequestMethods;
	/** Path below the base URL the API description reads from the credential. */
	path: string;
	qs?: IDataObject;
	body?: IHttpRequestOptions['body'];
	headers?: IDataObject;
	/** Send `body` as JSON (default true when the body is a plain object). */
	json?: boolean;
	/** Answer a stream instead of parsed JSON (music NDJSON). */
	stream?: boolean;
	/**
	 * The caller reads `Location` of a redirect (signed output URLs). Without it a redirect is an
	 * error: no redirect is ever followed, since that would send the credential to another address.
	 */
	manualRedirect?: boolean;
	/**
	 * The answer the API describes for this call: a JSON object. Anything else (an HTML page, an
	 * empty or cut-off body, null, a list) is an error that says what came, never data.
	 */
	answer?: 'object';
	/**
	 * Retry 5xx answers and network errors with back-off. Only for calls that are safe to repeat.
	 * (Every call waits out a 429, and a read a 503 with Retry-After, as the service asks: `slow-down.ts`.)
	 */
	retry?: boolean;
	/**
	 * When a wait the service asks for (429, 503 with Retry-After) must be over: the item's Max Wait,
	 * which its poller knows. The read limit bounds every such wait in any case.
	 */
	deadline?: number;
	timeout?: number;
	/** Item the call is made for (error messages carry it). */
	itemIndex?: number;
	/** What the call does, for error messages ("submitting the workflow"). */
	action?: string;
	/** Extra values to blank out of any error text (body secrets such as the publishing token). */
	secrets?: string[];
	/**
	 * What a status means for this call, when it differs from the general meaning (e.g. a 401 when
	 * claiming a node may be the code-hosting token, not the access token). Replaces the general
	 * headline and hint for those statuses only.
	 */
	statusAdvice?: Partial<Record<number, { headline: string; hint: string }>>;
	/**
	 * Send even after the execution was cancelled: clean-up calls made because of the cancellation
	 * (cancelling the node's own queued jobs). Give these a short `timeout`.
	 */
	ignoreCancel?: boolean;
	/**
	 * Ends the request when this aborts, as the execution's cancel signal does: a caller that gives
	 * up on a silent service closes the connection at once (destroying a stream cannot while a read waits).
	 */
	stop?: AbortSignal;
	/**
	 * Statuses the caller reads itself: answered as they came (headers only, the body closed),
	 * neither waited out, retried nor thrown. A v2 event stream refused with 429 too_many_streams
	 * or 501 not_implemented is polled at once instead, not waited for.
	 */
	answerStatuses?: number[];
	/**
	 * The exchange under way is not cut by the execution's cancel signal: its answer is read (within
	 * the idle limit), and no wait or retry starts after the cancel. A submit cut short could leave
	 * a job nobody can name; finished, its answer names the job the node then cancels.
	 */
	finishOnCancel?: boolean;
}

export interface HostResponse<T> {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: T;
	/** A streamed answer: stops reading it and closes its connection at once. */
	abandon?: () => void;
}
