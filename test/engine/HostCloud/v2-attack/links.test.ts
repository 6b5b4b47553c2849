/**
 * Outside attack on Host Cloud v2: links a server names. `urls.self`/`events`/`cancel` on another
 * host, output `url`s that are another host, `javascript:` or `file:`, and the content's 302 to
 * another host that redirects again, or back to the API host itself, or with the key in its
 * Location. The key must only ever go to the Base URL's host, and never into an error or output.
 */
import { randomUUID } from 'node:crypto';

import {
	API_KEY,
	assetRecord,
	envelope,
	executeParameters,
	job,
	json,
	keyBearers,
	nodeSpec,
	output,
	PNG,
	QUICK,
	useHostileV2,
	visible,
	wellBehaved,
} from './hostile-v2';

const v2 = useHostileV2();
afterEach(() => {
	v2.elsewhereAnswer = (_req, res) => json(res, 200, {});
});

const run = (more: Record<string, unknown> = {}, options = {}) =>
	v2.harness.runNode(nodeSpec(v2, executeParameters(more)), [{ json: {} }], options);
const download = (assetId: string) =>
	v2.harness.runNode(nodeSpec(v2, { resource: 'file', operation: 'downloadOutput', assetId }), [{ json: {} }]);
const ASSET = '9f8a1c0d-2b3e-4f56-8a7b-1c2d3e4f5a6b';
const asset = (more: Record<string, unknown> = {}) => assetRecord(v2, ASSET, more);
const bytes = (res: import('node:http').ServerResponse) => {
	res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) });
	res.end(PNG);
};

describe('links in a job', () => {
	test('urls.self, events and cancel naming another host are never followed: the job is read, streamed and cancelled under the Base URL', async () => {
		const id = randomUUID();
		const foreign = { self: `${v2.elsewhere.url}/self`, events: `${v2.elsewhere.url}/events`, cancel: `${v2.elsewhere.url}/cancel` };
		v2.answer = (req, res) => {
			if (req.method === 'POST' && req.url === '/api/v2/jobs') return json(res, 201, job(id, 'queued', { urls: foreign }));
			if (req.url === `/api/v2/jobs/${id}/events`) {
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				return void res.write(`event: status\ndata: {"status":"running"}\n\n`);
			}
			if (req.url.startsWith(`/api/v2/jobs/${id}`)) return json(res, 200, job(id, 'running', { urls: foreign }));
			envelope(res, 404, 'not_found');
		};
		const stop = new AbortController();
		const running = run({}, { signal: stop.signal });
		await new Promise((r) => setTimeout(r, 1500));
		stop.abort();
		await running;

		expect(v2.elsewhere.seen).toEqual([]);
		expect(v2.api.seen.filter((r) => r.url === `/api/v2/jobs/${id}/cancel`)).toHaveLength(1);
	}, 30_000);

	test.each([
		['javascript:', 'javascript:alert(document.cookie)'],
		['file:', 'file:///etc/passwd'],
	])('an output url on %s fails the item (only http(s) addresses are passed on), the key goes nowhere', async (_name, url) => {
		const id = randomUUID();
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/jobs/${id}`) return json(res, 200, job(id, 'succeeded', { outputs: [output(id, { url })] }));
			wellBehaved({ id })(req, res);
		};
		const result = await run({ downloadFiles: true });

		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/is not an absolute http\(s\) address/);
		expect(result.error('Node')?.message).not.toContain(url);
		expect(v2.elsewhere.seen).toEqual([]);
	});

	test.each([['another host', () => `${v2.elsewhere.url}/steal`]])(
		'an output url on %s: Download Files reads the bytes through the Base URL, the key goes nowhere else',
		async (_name, url) => {
			const id = randomUUID();
			v2.answer = (req, res) => {
				if (req.url === `/api/v2/jobs/${id}`) return json(res, 200, job(id, 'succeeded', { outputs: [output(id, { url: url() })] }));
				wellBehaved({ id })(req, res);
			};
			v2.elsewhereAnswer = (_req, res) => bytes(res);
			const result = await run({ downloadFiles: true });

			expect(keyBearers(v2.elsewhere)).toEqual([]);
			expect(result.status).toBe('success');
			expect(Object.keys(result.items[0]!.binary ?? {})).toHaveLength(1);
		},
	);
});

describe('the content redirect', () => {
	test('a 302 from /content to the API host itself: the key does not follow the redirect', async () => {
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/assets/${ASSET}`) return json(res, 200, asset());
			if (req.url === `/api/v2/assets/${ASSET}/content`) {
				res.writeHead(302, { location: `${v2.api.url}/storage/${ASSET}` });
				return void res.end();
			}
			if (req.url.startsWith('/storage/')) return bytes(res);
			envelope(res, 404, 'not_found');
		};
		const result = await download(ASSET);

		const followed = v2.api.seen.filter((r) => r.url.startsWith('/storage/'));
		expect(followed.length).toBeGreaterThan(0);
		expect(followed.filter((r) => JSON.stringify(r.headers).includes(API_KEY))).toEqual([]);
		expect(result.status).toBe('success');
	});

	test('a 302 to another host that redirects again, back to the API host: no credential on either hop', async () => {
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/assets/${ASSET}`) return json(res, 200, asset());
			if (req.url === `/api/v2/assets/${ASSET}/content`) {
				res.writeHead(302, { location: `${v2.elsewhere.url}/hop/${ASSET}` });
				return void res.end();
			}
			if (req.url.startsWith('/storage/')) return bytes(res);
			envelope(res, 404, 'not_found');
		};
		v2.elsewhereAnswer = (_req, res) => {
			res.writeHead(302, { location: `${v2.api.url}/storage/${ASSET}` });
			res.end();
		};
		const result = await download(ASSET);

		expect(keyBearers(v2.elsewhere)).toEqual([]);
		expect(v2.api.seen.filter((r) => r.url.startsWith('/storage/') && JSON.stringify(r.headers).includes(API_KEY))).toEqual([]);
		// What the user sees: either the bytes, or an error in words; never the key.
		expect(visible(result)).not.toContain(API_KEY);
	});

	test('a Location carrying the key (and the storage failing): the key is in no error or output', async () => {
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/assets/${ASSET}`) return json(res, 200, asset());
			if (req.url === `/api/v2/assets/${ASSET}/content`) {
				res.writeHead(302, { location: `${v2.elsewhere.url}/signed/${ASSET}?token=${API_KEY}` });
				return void res.end();
			}
			envelope(res, 404, 'not_found');
		};
		v2.elsewhereAnswer = (_req, res) => {
			res.writeHead(403, { 'content-type': 'text/plain' });
			res.end('denied');
		};
		const result = await download(ASSET);

		expect(result.status).toBe('error');
		expect(visible(result)).not.toContain(API_KEY);
	});

	test('an asset record whose url carries the key: Get Output URL does not hand the key on', async () => {
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/assets/${ASSET}`) return json(res, 200, asset({ url: `${v2.elsewhere.url}/x?k=${API_KEY}` }));
			envelope(res, 404, 'not_found');
		};
		const result = await v2.harness.runNode(nodeSpec(v2, { resource: 'file', operation: 'getOutputUrl', assetId: ASSET }), [{ json: {} }]);

		expect(visible(result)).not.toContain(API_KEY);
	});
});

// Found by the outside attack: Execute on v2 passed an output's `url` on verbatim, `javascript:`
// included (docs/security.md: only absolute http(s) addresses are passed on). The job's answer is now
// refused when an output's url is of another scheme.
describe('output links passed on', () => {
	test('an output url that is javascript: is not passed on as a link (Execute)', async () => {
		const id = randomUUID();
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/jobs/${id}`)
				return json(res, 200, job(id, 'succeeded', { outputs: [output(id, { url: 'javascript:alert(1)' })] }));
			wellBehaved({ id })(req, res);
		};
		const result = await run({ waitOptions: QUICK });

		expect(JSON.stringify(result.items)).not.toContain('javascript:');
	});

	// Get Output URL does check it: "The v2 API gave no link (url) for asset …".
	test('an asset record whose url is javascript: is not passed on as a link (Get Output URL)', async () => {
		v2.answer = (req, res) => {
			if (req.url === `/api/v2/assets/${ASSET}`) return json(res, 200, asset({ url: 'javascript:alert(1)' }));
			envelope(res, 404, 'not_found');
		};
		const result = await v2.harness.runNode(nodeSpec(v2, { resource: 'file', operation: 'getOutputUrl', assetId: ASSET }), [{ json: {} }]);

		expect(JSON.stringify(result.items)).not.toContain('javascript:');
	});
});
