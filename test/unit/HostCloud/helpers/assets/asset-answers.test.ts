/**
 * An Asset answer is checked before it is used: about the asset asked for, of the size and type
 * sent, with the contract's fields only; a failed request's outcome is unknown when it may have
 * arrived (no answer, or a 5xx), and its envelope code is read from the error.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { checkedAsset, envelopeCodeOf, isUnknownOutcome } from '../../../../../nodes/HostCloud/helpers/assets/asset-answers';

const node = { id: '1', name: 'Host Cloud', type: 'hostCloud', typeVersion: 1, position: [0, 0] as [number, number], parameters: {} };
const context = { getNode: () => node } as unknown as IExecuteFunctions;
const ASSET = {
	id: 'a1',
	hash: null,
	size_bytes: 10,
	content_type: 'image/png',
	file_path: 'cat.png',
	created_at: '2026-12-02T06:00:00Z',
	url: 'https://storage.example/a1?sig=x',
	url_expires_at: '2026-12-02T07:00:00Z',
	created_new: true,
};

describe('checkedAsset', () => {
	test('an answer about the asset, of the size and type sent, is passed on with the contract fields only', () => {
		const answer = { ...ASSET, internal: 'not passed on' };
		expect(checkedAsset(context, 0, answer, { what: 'x', id: 'a1', sizeBytes: 10, contentType: 'image/png' })).toEqual(ASSET);
	});

	test.each([
		['a list', [ASSET], /is not an asset record/],
		['no id', { ...ASSET, id: '' }, /has no asset id/],
		['another asset', { ...ASSET, id: 'a2' }, /about another asset \(a2\)/],
		['no size', { ...ASSET, size_bytes: '10' }, /gives no size in bytes/],
		['another size', { ...ASSET, size_bytes: 9 }, /says 9 bytes were stored where 10 were sent/],
		['no type', { ...ASSET, content_type: 5 }, /gives no content type/],
		['another type', { ...ASSET, content_type: 'text/html' }, /"text\/html" where "image\/png" was sent/],
	])('%s is an error that says what is wrong', (_case, answer, words) => {
		expect(() => checkedAsset(context, 0, answer, { what: 'the upload', id: 'a1', sizeBytes: 10, contentType: 'image/png' })).toThrow(
			words,
		);
	});

	test('a link that is not an http(s) address is left out', () => {
		expect(checkedAsset(context, 0, { ...ASSET, url: 'javascript:alert(1)' }, { what: 'x' }).url).toBeUndefined();
	});
});

const apiError = (httpCode: string, message: string, context: Record<string, unknown> = {}) => {
	const error = new NodeApiError(node, { message }, { message, httpCode });
	Object.assign(error.context, context);
	return error;
};

test('an outcome is unknown after a 5xx or a request that may have arrived; not after a 4xx or one that never left', () => {
	expect(isUnknownOutcome(apiError('500', 'upstream'))).toBe(true);
	expect(isUnknownOutcome(apiError('', 'reset', { mayHaveArrived: true }))).toBe(true);
	expect(isUnknownOutcome(apiError('', 'refused', { mayHaveArrived: false }))).toBe(false);
	expect(isUnknownOutcome(apiError('422', 'invalid'))).toBe(false);
	expect(isUnknownOutcome(new Error('plain'))).toBe(false);
});

test('the envelope code is the error context’s error_code; a 422 about the Idempotency-Key is its reuse', () => {
	expect(envelopeCodeOf(apiError('402', 'x', { error_code: 'insufficient_credits' }))).toBe('insufficient_credits');
	expect(envelopeCodeOf(apiError('422', 'The v2 API refused (HTTP 422): This Idempotency-Key was already used'))).toBe(
		'idempotency_key_reuse',
	);
	expect(envelopeCodeOf(apiError('422', 'file_path is required'))).toBeUndefined();
	expect(envelopeCodeOf(undefined)).toBeUndefined();
});
