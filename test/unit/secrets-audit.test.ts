/**
 * The secrets audit helper of the chaos and e2e suites (test/helpers/secrets-audit.ts): it must
 * find a secret in each form it promises, wherever it sits, and report nothing when it is absent.
 */
import { findSecrets, runHaystacks } from '../helpers/secrets-audit';

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
