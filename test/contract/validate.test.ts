/**
 * The contract validator itself: it accepts what the contract allows and rejects wrong shapes,
 * wrong statuses, wrong SSE frames and bad requests (a validator that rejects nothing proves
 * nothing). The contract copy is checked to be the published text under its header.
 */
import { readFileSync } from 'node:fs';

import { CONTRACT_PATH, contract, findOperation, validateRequest, validateResponse, validateSchema, validateValue } from './validate';

const job = {
	id: 'j1',
	status: 'running',
	created_at: '2026-12-02T06:00:00.000Z',
	started_at: null,
	completed_at: null,
	expires_at: '2026-12-03T06:00:00Z',
	queue_position: null,
	progress: { value: 0.5, nodes_done: 1, nodes_total: 2 },
	outputs: [],
	error: null,
	urls: { self: '/deployment/d/api/v2/jobs/j1', events: 'http://h/api/v2/jobs/j1/events', cancel: '/x' },
};

test('the copy is the published contract under a header naming its source and commit', () => {
	const text = readFileSync(CONTRACT_PATH, 'utf8');
	const header = text.slice(0, text.indexOf('\n\n') + 2);
	expect(header).toMatch(/Comfy-Org\/docs, path openapi-v2\.yaml/);
	expect(header).toMatch(/058ac1602f1acdf18f9be0bdc643660d479b9e5f/);
	expect(text.length - header.length).toBe(44976);
	expect(contract().info.version).toBe('2.0.0');
});

test('a valid job passes; wrong types, missing fields, bad enums, nulls, bounds and formats are each named', () => {
	expect(validateSchema('Job', job)).toEqual([]);
	const { urls: _urls, ...noUrls } = job;
	expect(validateSchema('Job', noUrls)).toEqual(['body.urls is required']);
	expect(validateSchema('Job', { ...job, status: 'done' })[0]).toMatch(/body.status is "done", not one of queued/);
	expect(validateSchema('Job', { ...job, created_at: null })).toEqual(['body.created_at is null, which is not allowed']);
	expect(validateSchema('Job', { ...job, created_at: 'yesterday' })[0]).toMatch(/is not a date-time/);
	expect(validateSchema('Job', { ...job, queue_position: 1.5 })[0]).toMatch(/should be an integer/);
	expect(validateSchema('Job', { ...job, progress: { value: 2, nodes_done: 1, nodes_total: 2 } })[0]).toMatch(/above the maximum 1/);
	expect(validateSchema('Job', { ...job, progress: { value: 0.5 } })).toEqual([
		'body.progress.nodes_done is required',
		'body.progress.nodes_total is required',
	]);
	expect(validateSchema('Job', { ...job, outputs: [{ node_id: '9' }] }).length).toBeGreaterThan(5);
	expect(validateSchema('Job', { ...job, error: { code: 'x' } })).toEqual(['body.error.message is required']);
	expect(validateSchema('Job', { ...job, metrics: { queue_ms: 'slow' } })[0]).toMatch(/metrics.queue_ms should be an integer/);
});

test('formats: uri must be absolute, uri-reference may be host-relative', () => {
	const output = {
		node_id: '9',
		name: 'a.png',
		type: 'image',
		content_type: 'image/png',
		size_bytes: 1,
		id: 'a',
		hash: null,
		url: '/relative',
		url_expires_at: '2026-12-02T06:00:00Z',
	};
	expect(validateSchema('Output', output)[0]).toMatch(/body.url is not an absolute URI/);
	expect(validateSchema('Output', { ...output, url: 'https://x/y' })).toEqual([]);
	expect(validateSchema('Output', { ...output, type: 'picture' })[0]).toMatch(/not one of image/);
});

test('additionalProperties false closes an object; a schema validates the extra values', () => {
	const body = { workflow: {}, extra_data: { api_key_comfy_org: 'k', client_id: 'c' } };
	expect(validateRequest('POST', '/api/v2/jobs', { 'content-type': 'application/json' }, body)).toEqual([
		'POST /api/v2/jobs: body.extra_data.client_id is not allowed (closed object)',
	]);
	expect(validateValue({ type: 'object', additionalProperties: { type: 'integer' } }, { a: 1, b: 'x' })).toEqual([
		'value.b should be an integer (got "x")',
	]);
});

test('responses: the status must be listed for the operation, and the body valid for it', () => {
	expect(findOperation('GET', '/deployment/dep-1/api/v2/jobs/abc')?.template).toBe('/api/v2/jobs/{id}');
	expect(validateResponse('GET', '/api/v2/jobs/abc', 200, 'application/json', JSON.stringify(job))).toEqual([]);
	expect(validateResponse('GET', '/api/v2/jobs/abc', 402, 'application/json', '{}')).toEqual([
		'GET /api/v2/jobs/{id} 402: the contract lists no 402 for this operation',
	]);
	expect(validateResponse('GET', '/api/v2/jobs/abc', 404, 'application/json', { error: { code: 'not_found' } })).toEqual([
		'GET /api/v2/jobs/{id} 404: body.error.message is required',
	]);
	expect(validateResponse('GET', '/api/v2/jobs/abc', 404, 'text/plain', 'nope')[0]).toMatch(
		/content type text\/plain is not one of application\/json/,
	);
	expect(
		validateResponse(
			'GET',
			'/api/v2/jobs/abc',
			429,
			'application/json',
			{ error: { code: 'rate_limited', message: 'm' } },
			{ 'retry-after': 'soon' },
		)[0],
	).toMatch(/header Retry-After should be an integer/);
	expect(validateResponse('GET', '/api/v2/nothing', 404, 'application/json', {})).toEqual([
		'GET /api/v2/nothing is no operation of the contract',
	]);
});

test('SSE bodies: every frame an event of the catalogue with valid data and no id', () => {
	const path = '/api/v2/jobs/j1/events';
	const good = `event: status\ndata: {"status":"running","queue_position":null}\n\nevent: progress\ndata: {"value":0,"nodes_done":0,"nodes_total":3}\n\n`;
	expect(validateResponse('GET', path, 200, 'text/event-stream', good)).toEqual([]);
	const bad =
		'event: status\ndata: {"status":"paused"}\n\nevent: tick\ndata: {}\n\nid: 4\nevent: status\ndata: {"status":"queued"}\n\nevent: preview\ndata: not json\n\n';
	const breaches = validateResponse('GET', path, 200, 'text/event-stream', bad);
	expect(breaches).toHaveLength(4);
	expect(breaches.join('\n')).toMatch(/frame 0 \(status\).data.status is "paused"/);
	expect(breaches.join('\n')).toMatch(/frame 1 \(tick\): no such event/);
	expect(breaches.join('\n')).toMatch(/frame 2 \(status\) carries an id/);
	expect(breaches.join('\n')).toMatch(/frame 3 \(preview\): data is not JSON/);
});

test('requests: JSON body schema, multipart required fields and typed values, Idempotency-Key a single string, Bearer auth', () => {
	const json = { 'content-type': 'application/json', authorization: 'Bearer k' };
	expect(validateRequest('POST', '/api/v2/jobs', { ...json, 'idempotency-key': 'u-1' }, { workflow: {} })).toEqual([]);
	expect(validateRequest('POST', '/api/v2/jobs', json, { workflow: [] })).toEqual([
		'POST /api/v2/jobs: body.workflow should be an object (got [])',
	]);
	expect(validateRequest('POST', '/api/v2/jobs', json, undefined)).toEqual(['POST /api/v2/jobs: the body is required']);
	expect(validateRequest('POST', '/api/v2/jobs', { ...json, 'idempotency-key': ['a', 'b'] }, { workflow: {} })).toEqual([
		'POST /api/v2/jobs: header Idempotency-Key is sent 2 times',
	]);
	expect(validateRequest('GET', '/api/v2/jobs/x', { authorization: 'k' }, undefined)).toEqual([
		'GET /api/v2/jobs/{id}: Authorization is not "Bearer <key>"',
	]);
	expect(validateRequest('GET', '/api/v2/jobs/x', {}, { a: 1 })).toEqual(['GET /api/v2/jobs/{id}: the operation takes no body']);
	const multipart = { 'content-type': 'multipart/form-data; boundary=x' };
	const form = { fields: { content_type: ['image/png'], file_path: ['a.png'], tags: ['input', 'x'] }, files: ['file'] };
	expect(validateRequest('POST', '/api/v2/assets', multipart, form)).toEqual([]);
	expect(validateRequest('POST', '/api/v2/assets', multipart, { fields: { expires_in: ['30'] }, files: [] })).toEqual([
		'POST /api/v2/assets: form field file is required (a file part)',
		'POST /api/v2/assets: form field content_type is required',
		'POST /api/v2/assets: form field file_path is required',
		'POST /api/v2/assets: form field expires_in is 30, below the minimum 60',
	]);
	expect(validateRequest('POST', '/api/v2/assets', json, form)[0]).toMatch(
		/content type application\/json is not one of multipart\/form-data/,
	);
});
