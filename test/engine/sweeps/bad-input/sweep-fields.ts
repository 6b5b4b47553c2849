/**
 * The promises of the bad-input parameter sweep, for one operation: fast-check picks a visible
 * field of it and a hostile value (`cases.ts`), and the run must never throw a JavaScript error; a
 * value that cannot be right fails the item, names the field and sends nothing; a value the field
 * allows is not refused by its name; nothing sent carries "[object Object]", "NaN" or "undefined".
 */
import fc from 'fast-check';
import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { SEED, tally, uncaughtError } from '../../../support/bad-input';
import type { HarnessItem } from '../../../support/items-node';
import { visibleFields, withField, type Field, type Parameters } from '../../../support/node-parameters';
import type { SweepRun } from '../../../support/sweep-operations';
import { casesFor, fieldAndCase } from './cases';

/** A swept run's outcome; on v2 also its requests the contract does not allow. */
export type Swept = SweepRun & { offContract?: string[] };

/**
 * Whether a message names the field: by its display name, or by the name of the thing an image
 * source field gives ("Image (image) is required" for the field "Image URL").
 */
function names(message: string, field: Field): boolean {
	// n8n's own check (before the node runs) names the parameter it finds blank, which may be one the swept field shows.
	if (/^The 'Node' node has issues:\s+- Parameter "[^"]+"/.test(message)) return true;
	const stem = field.displayName.replace(/\s*(URL|\(Base64\)|\(URL or Base64\))$/, '');
	return message.includes(field.displayName) || (stem !== '' && message.startsWith(stem));
}

/** A query string as the service reads it ("%5Bobject%20Object%5D" is "[object Object]" too). */
function safeDecode(url: string): string {
	try {
		return decodeURIComponent(url);
	} catch {
		return url;
	}
}

const SENT_GARBAGE = /\[object Object\]|\bNaN\b|\bundefined\b/;

const mentionsFiles = new WeakMap<INodeProperties, boolean>();

/**
 * Whether a field showing for `parameters` can read the input item's files (a binary field, an
 * image source that may be one, input images). Only then does the item carry its files: n8n stores
 * each file of an input item on disk for every run, about a quarter of this sweep's CPU.
 */
export function readsFiles(description: INodeTypeDescription, parameters: Parameters): boolean {
	return visibleFields(description, parameters).some(({ property }) => {
		if (!mentionsFiles.has(property)) mentionsFiles.set(property, /binary/i.test(JSON.stringify(property)));
		return mentionsFiles.get(property);
	});
}

/** How a sweep runs one operation's values, and how many. */
export interface FieldSweep {
	run: (parameters: Parameters, item: HarnessItem) => Promise<Swept>;
	/** The input item of a run that can read files (`itemFor` the node); the others get one without files. */
	item: HarnessItem;
	numRuns: number;
	/** Fields left out (API Generation on v2: it is swept on v1). */
	skip?: (field: Field) => boolean;
	/** A run that sent nothing by its end and must never (the sweep's service checks it once more after the sweep). */
	mustStaySilent?: (run: number, what: string) => void;
}

/** Sweeps the fields of one operation (`base`, its parameters) to the promises above. */
export async function sweepFields(description: INodeTypeDescription, base: Parameters, sweep: FieldSweep): Promise<void> {
	const fields = visibleFields(description, base).filter((field) => casesFor(field) !== undefined && !sweep.skip?.(field));
	if (fields.length === 0) return; // nothing to set (Get Queue, Interrupt)
	await fc.assert(
		fc.asyncProperty(fieldAndCase(fields), async ({ field, value, verdict, noBinary }) => {
			tally.inputs_tried++;
			const parameters = withField(base, field, value);
			const swept = await sweep.run(parameters, noBinary || !readsFiles(description, parameters) ? { json: {} } : sweep.item);
			const uncaught = uncaughtError(swept.error);
			if (uncaught) tally.uncaught_errors++;
			const garbage = swept.sent.map((request) => `${safeDecode(request.url)} ${request.body}`).filter((sent) => SENT_GARBAGE.test(sent));
			const offContract = swept.offContract ?? [];
			expect({ uncaught: uncaught ?? 'none', garbage, offContract }).toEqual({ uncaught: 'none', garbage: [], offContract: [] });
			// Refused by the node's own checks: nothing sent (a NodeApiError is the service's answer, even one
			// the loopback server gave before logging the request, such as 431 for a huge address).
			const refused =
				swept.error !== undefined && (swept.error as Error).name !== 'NodeApiError' && swept.sent.length === 0 && swept.sockets === 0;
			if (refused) tally.refused_before_sending++;
			const said = swept.error?.message ?? '';
			if (verdict === 'invalid') expect({ said, refused, named: names(said, field) }).toEqual({ said, refused: true, named: true });
			if (refused && swept.run !== undefined) sweep.mustStaySilent?.(swept.run, `${field.displayName} = ${JSON.stringify(value)}`);
			// An allowed value may still be refused in combination with another field ("used only when Is Portrait is true").
			const combination = fields.some((other) => other !== field && said.includes(other.displayName));
			if (verdict === 'valid' && refused && !combination) expect(said.startsWith(field.displayName)).toBe(false);
			if (refused && verdict === 'any') expect({ said, named: names(said, field) }).toEqual({ said, named: true });
		}),
		{ seed: SEED, numRuns: sweep.numRuns, endOnFailure: true },
	);
}
