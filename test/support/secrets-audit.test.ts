/**
 * The e2e secrets audit's search (test/e2e/support/secrets-audit.ts): it finds a secret in every
 * form it may take, and leaves out only the notification URL field of a create-task request that
 * holds the resume URL handed over, nothing else of that request.
 */
import type { LoggedRequest } from '../../simulator/core';
import { findSecrets, requestLogHaystacks, type ResumeUrl } from '../e2e/support/secrets-audit';

const SECRET = { name: 'the token', value: 'sim-access-token' };

const where = (texts: string[]) =>
	findSecrets(
		texts.map((text, index) => ({ where: `#${index}`, text })),
		[SECRET],
	);

describe('findSecrets', () => {
	it('finds a secret as is, URL-encoded, JSON-escaped and inside Base64 at any offset, in either alphabet', () => {
		const odd = { name: 'odd', value: 'a/b+c "d"?é' };
		const inBase64 = (prefix: string) => Buffer.from(`${prefix}${odd.value} and more`).toString('base64');
		const texts = [
			`x ${odd.value} y`,
			`?q=${encodeURIComponent(odd.value)}&r=1`,
			JSON.stringify({ field: odd.value }),
			inBase64(''),
			inBase64('1'),
			inBase64('12'),
			inBase64('1').replace(/\+/g, '-').replace(/\//g, '_'),
		];
		const hits = findSecrets(
			texts.map((text, index) => ({ where: `#${index}`, text })),
			[odd],
		);
		expect(hits.map((hit) => hit.where)).toEqual(texts.map((_text, index) => `#${index}`));
		expect(new Set(hits.map((hit) => hit.form))).toEqual(new Set(['plain', 'url-encoded', 'json-escaped', 'base64', 'base64url']));
	});

	it('finds nothing in a masked value, another secret or a part of the secret', () => {
		expect(where(['Bearer ***(16)', 'sim-access-toke', Buffer.from('sim-access').toString('base64'), 'sim-api-key'])).toEqual([]);
	});
});

describe('requestLogHaystacks', () => {
	const resume: ResumeUrl = {
		executionId: '7',
		url: 'http://127.0.0.1:5678/webhook-waiting/7?signature=abc123def456',
		signature: 'abc123def456',
	};
	const request = (path: string, body: unknown): LoggedRequest => ({
		at: 0,
		host: 'service',
		method: 'POST',
		path,
		query: {},
		headers: {},
		body: JSON.stringify(body),
	});
	const signatureIn = (requests: LoggedRequest[]) =>
		findSecrets(requestLogHaystacks(requests, [resume]), [{ name: 'signature', value: resume.signature }]).map((hit) => hit.where);

	it("leaves out the create-task request's notification URL when it is the resume URL handed over", () => {
		expect(signatureIn([request('/proxy/video/extend', { model: 'videoq2-turbo', callback_url: resume.url })])).toEqual([]);
		expect(signatureIn([request('/proxy/imaging/v1/ai/image-upscaler', { image: 'x', webhook_url: resume.url })])).toEqual([]);
	});

	it('searches everything else: another field, another path, another URL in that field', () => {
		expect(signatureIn([request('/proxy/video/extend', { callback_url: resume.url, prompt: resume.signature })])).toHaveLength(1);
		expect(signatureIn([request('/proxy/video/extend', { webhook_url: resume.url })])).toHaveLength(1);
		expect(signatureIn([request('/api/prompt', { callback_url: resume.url })])).toHaveLength(1);
		expect(signatureIn([request('/proxy/video/extend', { callback_url: `${resume.url}&x=1` })])).toHaveLength(1);
	});
});
