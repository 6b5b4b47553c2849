/**
 * The secrets audit of the chaos and e2e suites (test/support/secrets-audit.ts, and what the e2e
 * gathers in test/e2e/support/secrets-audit.ts): it must find a secret in each form it promises,
 * wherever it sits, report nothing when it is absent, and leave out only the one place a resume
 * URL belongs.
 */
import type { LoggedRequest } from '../../../simulator/shared/core';
import { requestLogHaystacks, searchHaystacks, type ResumeUrl } from '../../e2e/support/secrets-audit';
import { findSecrets, runHaystacks } from '../../support/secrets-audit';

const SECRET = 'sk-live-7f3a9c1e5b';

const base64At = (prefix: string, urlSafe = false) => {
	const text = Buffer.from(`${prefix}${SECRET}!tail`).toString('base64');
	return urlSafe ? text.replace(/\+/g, '-').replace(/\//g, '_') : text;
};

describe('findSecrets', () => {
	it('finds a secret as is, URL-encoded (escapes or form style) and in Base64 at every alignment, standard or URL-safe', () => {
		const haystacks = {
			plain: `token=${SECRET} in a message`,
			escaped: `?t=${encodeURIComponent(`${SECRET}/`).replace('-', '%2D')}`,
			form: new URLSearchParams({ t: `a b ${SECRET}` }).toString(),
			b0: base64At(''),
			b1: `data:${base64At('x')}`,
			b2: base64At('xy', true),
			// At the very end of a run whose padding was dropped (or cut by the "=" of a query).
			end: `t=${Buffer.from(`x${SECRET}`).toString('base64').replace(/=+$/, '')}&next=1`,
		};
		expect(findSecrets(haystacks, { key: SECRET })).toEqual([
			{ secret: 'key', where: 'plain', form: 'as is' },
			{ secret: 'key', where: 'escaped', form: 'URL-encoded' },
			{ secret: 'key', where: 'form', form: 'as is' },
			{ secret: 'key', where: 'b0', form: 'Base64' },
			{ secret: 'key', where: 'b1', form: 'Base64' },
			{ secret: 'key', where: 'b2', form: 'Base64' },
			{ secret: 'key', where: 'end', form: 'Base64' },
		]);
	});

	it('walks values (keys included), names each secret by its name only, and skips empty secrets', () => {
		const found = findSecrets({ item: { json: { nested: [{ [SECRET]: 1 }, 'fine'] } } }, { 'API key': SECRET, unused: '' });
		expect(found).toEqual([{ secret: 'API key', where: `item › json › nested › 0 › ${SECRET}`, form: 'as is' }]);
		expect(JSON.stringify(findSecrets({ a: SECRET }, { 'API key': SECRET }))).not.toContain(`"${SECRET}"`);
	});

	it('reports nothing when the secret is not there, nor for a near miss', () => {
		const near = SECRET.slice(0, -1);
		expect(findSecrets({ a: near, b: Buffer.from(near).toString('base64'), c: encodeURIComponent(near) }, { key: SECRET })).toEqual([]);
	});
});

describe('findSecrets on secrets with quotes, slashes and non-ASCII letters', () => {
	const odd = 'a/b+c "d"?é';
	const inBase64 = (prefix: string) => Buffer.from(`${prefix}${odd} and more`).toString('base64');

	it('finds them JSON-escaped, URL-encoded and inside Base64 at any offset, in either alphabet', () => {
		const haystacks = {
			json: JSON.stringify({ field: odd }),
			query: `?q=${encodeURIComponent(odd)}&r=1`,
			b0: inBase64(''),
			b1: inBase64('1'),
			b2: inBase64('12'),
			url: inBase64('1').replace(/\+/g, '-').replace(/\//g, '_'),
		};
		expect(findSecrets(haystacks, { odd })).toEqual([
			{ secret: 'odd', where: 'json', form: 'JSON-escaped' },
			{ secret: 'odd', where: 'query', form: 'URL-encoded' },
			{ secret: 'odd', where: 'b0', form: 'Base64' },
			{ secret: 'odd', where: 'b1', form: 'Base64' },
			{ secret: 'odd', where: 'b2', form: 'Base64' },
			{ secret: 'odd', where: 'url', form: 'Base64' },
		]);
	});

	it('finds nothing in a masked value or a part of the secret', () => {
		const token = 'sim-access-token';
		expect(findSecrets({ a: 'Bearer ***(16)', b: token.slice(0, -1), c: Buffer.from('sim-access').toString('base64') }, { token })).toEqual(
			[],
		);
	});
});

describe('the e2e request log', () => {
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
		searchHaystacks(requestLogHaystacks(requests, [resume]), [{ name: 'signature', value: resume.signature }]).map((hit) => hit.where);

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

describe('runHaystacks', () => {
	it('takes each item’s json and binary metadata, each error’s message and description, each request’s path, query and body', () => {
		const haystacks = runHaystacks({
			items: [{ json: { error: 'x' }, binary: { data: { data: '', mimeType: 'image/png', fileName: SECRET } } }],
			errors: [{ message: 'm', description: SECRET }],
			requests: [{ at: 0, host: 'storage', method: 'PUT', path: '/o/k', query: { signature: SECRET }, headers: {}, body: '' }],
		});
		expect(findSecrets(haystacks, { key: SECRET }).map((finding) => finding.where)).toEqual([
			'item 0 › binary › data › fileName',
			'error 0 › description',
			'request 0 (PUT storage /o/k) › query › signature',
		]);
	});
});
