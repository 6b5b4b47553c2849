/**
 * The hostile values the bad-input sweep gives a field, by the field's type and declared bounds
 * (NaN, out of range, huge, text where a number goes, lists and objects from expressions, empty and
 * odd Unicode text, a missing binary field), each with the verdict a user must see for it: a value
 * that cannot be right is refused, one the field allows is not, and any other may go either way.
 */
import fc from 'fast-check';

import { allowedValues, type Field } from '../../../support/node-parameters';

export type Verdict = 'invalid' | 'valid' | 'any';

export interface Case {
	value: unknown;
	verdict: Verdict;
	/** The input item has no binary data at all. */
	noBinary?: boolean;
}

export const expr = (code: string) => `={{ ${code} }}`;

const isInputBinary = (field: Field) =>
	field.property.displayName === 'Input Binary Field' || field.property.name.endsWith('BinaryProperty');

/** Text that is not a number, Unicode and control characters included. */
const notNumberText = fc.oneof(
	fc.constantFrom('abc', 'ten', '1,5', '12px', '0x', '∞', '١٢', '\u{1F3B5}', '1 2', 'NaN', 'Infinity', '--1'),
	fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).filter((text) => text.trim() === '' || Number.isNaN(Number(text))),
);
const listsAndObjects = fc.oneof(
	fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 8 })), { maxLength: 3 }),
	fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.oneof(fc.integer(), fc.string({ maxLength: 6 })), { maxKeys: 3 }),
);
/**
 * Text of up to 40 code points, any but the surrogates: what fast-check's `binary` string unit
 * draws, without the table of all 1.1 million code points that unit builds (half a CPU-second in
 * each test file that makes one).
 */
const anyCodePoints = fc
	.array(
		fc.integer({ min: 0, max: 0x10ffff - 0x800 }).map((n) => (n < 0xd800 ? n : n + 0x800)),
		{ maxLength: 40 },
	)
	.map((codePoints) => String.fromCodePoint(...codePoints));
const oddText = fc.oneof(
	fc.constantFrom('', ' ', '\t\n', '\u0000', '\u202Eevil', '\u{1F3B5}\u{1F3B6}', 'e\u0301', '"quoted"', '{{ $json }}'),
	anyCodePoints,
	fc.string({ unit: 'grapheme', maxLength: 40 }),
	fc.integer({ min: 1, max: 3000 }).map((n) => 'é'.repeat(n)),
);
/** Any value a text field may be given: none of them may break anything. */
const anyText = fc.oneof(oddText, listsAndObjects, fc.integer(), fc.boolean(), fc.constant(null));
const notBoolean = fc.oneof(fc.constantFrom('maybe', 'yes', 2, -1), listsAndObjects).map((value) => ({ value, verdict: 'any' as const }));
/** Text for an options field: any short text (a grapheme string is costly to set up, so there is one). */
const optionText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 });

function numberCases(field: Field): fc.Arbitrary<Case> {
	const options = field.property.typeOptions ?? {};
	const min = typeof options.minValue === 'number' ? options.minValue : undefined;
	const max = typeof options.maxValue === 'number' ? options.maxValue : undefined;
	const whole = options.numberPrecision === 0;
	const invalid: Array<fc.Arbitrary<unknown>> = [
		fc.constantFrom(expr('NaN'), expr('Infinity'), expr('-Infinity'), Number.NaN),
		notNumberText,
		listsAndObjects,
	];
	// fast-check orders -0 below 0, so "below 0" can give -0, which equals 0 and is allowed: the filters keep only real outsiders.
	if (min !== undefined)
		invalid.push(
			fc.double({ min: -1e300, max: min, noNaN: true, maxExcluded: true }).filter((n) => n < min),
			fc.constant(min - 1),
		);
	if (max !== undefined)
		invalid.push(
			fc.double({ min: max, max: 1e300, noNaN: true, minExcluded: true }).filter((n) => n > max),
			fc.constant(max + 1),
		);
	if (whole) invalid.push(fc.integer({ min: -1000, max: 1000 }).map((n) => n + 0.5));
	const cases: Array<fc.Arbitrary<Case>> = [fc.oneof(...invalid).map((value) => ({ value, verdict: 'invalid' as const }))];
	// The declared range is what the field allows, where it is narrow enough to mean it (int32 bounds only say "a 32-bit integer").
	const low = min ?? (max !== undefined ? max - 1000 : undefined);
	const high = max ?? (min !== undefined ? min + 1000 : undefined);
	if (low !== undefined && high !== undefined && high - low <= 1e6) {
		const inRange = whole
			? fc.integer({ min: Math.ceil(low), max: Math.floor(high) })
			: fc.double({ min: low, max: high, noNaN: true }).map((n) => Math.min(high, Math.max(low, Math.round(n * 100) / 100)));
		cases.push(fc.oneof(inRange, inRange.map(String)).map((value) => ({ value, verdict: 'valid' as const })));
	}
	if (min === undefined || max === undefined)
		cases.push(fc.constantFrom(1e300, -1e300, 2 ** 53 + 2).map((value) => ({ value, verdict: 'any' as const })));
	return fc.oneof(...cases);
}

function stringCases(field: Field): fc.Arbitrary<Case> {
	const cases: Array<fc.Arbitrary<Case>> = [anyText.map((value) => ({ value, verdict: 'any' as const }))];
	if (field.property.required && !field.in) {
		cases.push(fc.constantFrom(expr('""'), '   ', expr('null')).map((value) => ({ value, verdict: 'invalid' as const })));
	}
	if (isInputBinary(field)) {
		cases.push(fc.constantFrom('no_such_field', 'photo ').map((value) => ({ value, verdict: 'invalid' as const })));
		cases.push(fc.constant({ value: field.property.default, verdict: 'invalid' as const, noBinary: true }));
	}
	return fc.oneof(...cases);
}

function optionCases(field: Field): fc.Arbitrary<Case> {
	const allowed = allowedValues(field);
	const outside = fc
		.oneof(optionText, fc.constantFrom('NONE', allowed[0]!.toUpperCase()))
		.filter((value) => value.trim() !== '' && !allowed.includes(value));
	return fc.oneof(
		fc.oneof(outside, listsAndObjects, fc.constant(expr('NaN'))).map((value) => ({ value, verdict: 'invalid' as const })),
		// A blank choice may stand for the default, and spaces around a choice may be trimmed; neither may break anything.
		fc.constantFrom('', ' ', `${allowed[0]} `).map((value) => ({ value, verdict: 'any' as const })),
		fc.constantFrom(...allowed).map((value) => ({ value, verdict: 'valid' as const })),
	);
}

/** The cases of a field the sweep can set; undefined for one it cannot (an options list filled from the service). */
export function casesFor(field: Field): fc.Arbitrary<Case> | undefined {
	switch (field.property.type) {
		case 'number':
			return numberCases(field);
		case 'string':
		case 'json':
			return stringCases(field);
		case 'options':
			// Options filled from the service at edit time have no fixed list to check against.
			return field.property.typeOptions?.loadOptionsMethod || allowedValues(field).length === 0 ? undefined : optionCases(field);
		case 'boolean':
			return notBoolean;
		default:
			return undefined;
	}
}

/**
 * A field the sweep picks and a case of it, from `fields` (each field's cases built once: built
 * anew for each value drawn, as `chain` would, they cost more than the run they pick for).
 */
export function fieldAndCase(fields: Field[]): fc.Arbitrary<Case & { field: Field }> {
	const picks = new Map(fields.map((field) => [field, casesFor(field)!.map((c) => ({ field, ...c }))]));
	return fc.constantFrom(...fields).chain((field) => picks.get(field)!);
}
