/**
 * Item handling shared by every node: runs an operation per input item, pairs each output item
 * with its input, and honours "Continue On Fail" per item, as n8n users expect.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { MAX_JSON_DEPTH } from '../transport/json-reader';
import { ERROR_CODE_FIELD } from '../transport/request-errors';
import { serviceWaitWords, WAITED_FIELD, waitedForService, withServiceWait } from '../transport/slow-down';
import { notForTools, runsAsTool, type ToolAvailability } from '../tools/tool-use';

/** An operation that handles one item and answers zero or more output items. */
export type ItemOperation = (this: IExecuteFunctions, itemIndex: number) => Promise<INodeExecutionData[]>;

/**
 * The output item of a failed input item under "Continue On Fail": `error` (the message) and the
 * facts (`errorDetails`, `httpCode`, `error_code` when the service typed the error, and `extra`
 * such as a job's `prompt_id`). With "On Error:
 * Continue (using error output)" n8n routes an item to the error output only when its json holds
 * nothing but `error`, `message` and `details`, so there the facts go under `details` (n8n adds
 * the input item's fields). The input's files ride along either way, so none are lost.
 */
export function failedItem(context: IExecuteFunctions, thrown: unknown, itemIndex: number, extra: IDataObject = {}): INodeExecutionData {
	const error = outOfStack(thrown) ? errorForItem(context, thrown, itemIndex) : thrown;
	if (error instanceof NodeApiError || error instanceof NodeOperationError) tellServiceWait(context, error, itemIndex);
	const facts: IDataObject = {};
	const description = (error as { description?: unknown }).description;
	if (typeof description === 'string' && description) facts.errorDetails = description;
	const httpCode = (error as { httpCode?: unknown }).httpCode;
	if (typeof httpCode === 'string' && httpCode) facts.httpCode = httpCode;
	// The code a service typed the error with (v2's envelope), for an IF or Switch to branch on.
	const code = (error as { context?: IDataObject }).context?.[ERROR_CODE_FIELD];
	if (typeof code === 'string') facts[ERROR_CODE_FIELD] = code;
	const waited = waitedForService(context, itemIndex);
	if (waited !== undefined) facts[WAITED_FIELD] = waited;
	Object.assign(facts, extra);
	const message = (error as Error).message ?? String(error);
	const toErrorOutput = context.getNode().onError === 'continueErrorOutput';
	const json: IDataObject = toErrorOutput
		? { error: message, ...(Object.keys(facts).length ? { details: facts } : {}) }
		: { error: message, ...facts };
	const item: INodeExecutionData = { json, pairedItem: { item: itemIndex } };
	const binary = context.getInputData()[itemIndex]?.binary;
	if (binary) item.binary = binary;
	return item;
}

const outOfStack = (error: unknown): boolean =>
	(error as Error | undefined)?.name === 'RangeError' && /call stack/i.test((error as Error).message);

/**
 * Makes sure an error thrown for an item carries that item's index, so n8n points at it. Running
 * out of stack is said in words: everything the service sends is read within bounds, so its cause
 * is a value given to the node nested too deep for n8n to read (n8n walks a parameter's value
 * recursively before the node sees it).
 */
export function errorForItem(context: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		tellServiceWait(context, error, itemIndex);
		return error;
	}
	if (outOfStack(error)) {
		return new NodeOperationError(context.getNode(), 'A value given to this node is nested too deep to be read', {
			itemIndex,
			description: `Give lists and objects (from expressions or pasted JSON) fewer than ${MAX_JSON_DEPTH} levels of nesting.`,
		});
	}
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

/** A failed item's error says how long it waited for the service first (once, however often it passes here). */
function tellServiceWait(context: IExecuteFunctions, error: NodeApiError | NodeOperationError, itemIndex: number): void {
	const words = serviceWaitWords(context, Number(error.context.itemIndex ?? itemIndex));
	if (!words || error.context[WAITED_FIELD] !== undefined) return;
	error.context[WAITED_FIELD] = waitedForService(context, Number(error.context.itemIndex ?? itemIndex));
	error.description = error.description ? `${error.description} ${words}` : words;
}

/**
 * An item's output items paired with it; with `context`, each also says how long the item waited
 * for the service, when it did (`slow-down.ts`).
 */
export function paired(items: INodeExecutionData[], itemIndex: number, context?: IExecuteFunctions): INodeExecutionData[] {
	const told = context ? withServiceWait(context, itemIndex, items) : items;
	return told.map((item) => ({ ...item, pairedItem: item.pairedItem ?? { item: itemIndex } }));
}

export async function runPerItem(context: IExecuteFunctions, operation: ItemOperation): Promise<INodeExecutionData[]> {
	const items = context.getInputData();
	const out: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			out.push(...paired(await operation.call(context, itemIndex), itemIndex, context));
		} catch (error) {
			if (context.continueOnFail()) {
				out.push(failedItem(context, error, itemIndex));
				continue;
			}
			throw errorForItem(context, error, itemIndex);
		}
	}
	return out;
}

/** Items checked before anything is sent: what passed (the check's answer), and why the others failed. */
export interface CheckedItems<T> {
	passed: Map<number, T>;
	failures: Map<number, unknown>;
}

/**
 * Checks every item before anything is sent (batch operations): answers what passed, by item
 * index, and, under "Continue On Fail", what failed; without it the first failure is thrown. A
 * check may read (a Host Cloud workflow in UI format needs the server's node definitions).
 */
export async function checkEachItem<T>(
	context: IExecuteFunctions,
	count: number,
	check: (itemIndex: number) => T | Promise<T>,
): Promise<CheckedItems<T>> {
	const passed = new Map<number, T>();
	const failures = new Map<number, unknown>();
	const continueOnFail = context.continueOnFail();
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		try {
			passed.set(itemIndex, await check(itemIndex));
		} catch (error) {
			if (!continueOnFail) throw errorForItem(context, error, itemIndex);
			failures.set(itemIndex, error);
		}
	}
	return { passed, failures };
}

/**
 * An operation handles one item (`execute`), or all items of the run at once (`executeAll`) when
 * they share work (the cloud operations that wait share one WebSocket and run items concurrently).
 */
export interface Operation extends ToolAvailability {
	execute?: ItemOperation;
	executeAll?: (this: IExecuteFunctions, items: INodeExecutionData[]) => Promise<INodeExecutionData[]>;
}

/** A node's resource → operation map: each resource dropdown value, each of its operation values, the module that runs it. */
export type NodeResources = Readonly<Record<string, { readonly operations: Readonly<Record<string, Operation>> }>>;

/** A node's own check of the operation picked, before it runs (Host Cloud's API generations): throws to refuse it, before anything is sent. */
export type OperationRefusal = (context: IExecuteFunctions, resource: string, operation: string, selected: Operation | undefined) => void;

/**
 * A node's router: runs the operation the resource and operation dropdowns pick, from the node's
 * table of resources, once the node's own check (`refuse`) has let it pass. The node's `execute`
 * calls it, and it calls the operation.
 */
export function operationRouter(
	resources: NodeResources,
	refuse?: OperationRefusal,
): (this: IExecuteFunctions) => Promise<INodeExecutionData[][]> {
	return async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const resource = this.getNodeParameter('resource', 0) as string;
		const operation = this.getNodeParameter('operation', 0) as string;
		const selected = resources[resource]?.operations[operation];
		// The node's own refusal first: it may word a tool's refusal for its settings (Host Cloud's v2).
		refuse?.(this, resource, operation, selected);
		// Hidden on the tool type; a workflow saved with it anyway is refused before anything is sent.
		if (selected?.notAsTool && runsAsTool(this)) throw notForTools(this, 0, selected.notAsTool);
		if (selected?.executeAll) {
			try {
				return [await selected.executeAll.call(this, this.getInputData())];
			} catch (error) {
				// Settings of the whole run are read from the first item, outside any item's own handling.
				throw outOfStack(error) ? errorForItem(this, error, 0) : error;
			}
		}
		if (!selected?.execute) {
			throw new NodeOperationError(this.getNode(), `The operation "${operation}" of resource "${resource}" is not supported`);
		}
		return [await runPerItem(this, selected.execute)];
	};
}
