/**
 * test/support/v2-contract.ts over real exchanges: a client that follows the contract leaves no
 * breach; a request or an answer outside it is named (so "every exchange was valid" proves something).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { V2Simulator } from '../../../simulator/server';
import { picturePng } from '../../../simulator/shared/png';
import { answerBreaches, contractBreaches, requestBreaches } from '../../support/v2-contract';
import { waitUntil } from '../../support/wait';
import { openStream, uploadForm, useV2Simulator, v2Client } from '../support/v2';

const WORKFLOW = JSON.parse(readFileSync(join(__dirname, '../../fixtures/txt2img-api.json'), 'utf8')) as Record<string, unknown>;

let sim: V2Simulator;
useV2Simulator({ nodeMs: 5 }, (s) => (sim = s));
const { call, auth } = v2Client(() => sim);

test('a whole run by the contract (upload, submit with a key, stream, poll, workflow, content) has no breach either side', async () => {
	const asset = await call('POST', '/api/v2/assets', uploadForm(picturePng(4, 4, 1), { tags: ['input'], expires_in: '600' }));
	const workflow = {
		...WORKFLOW,
		'20': { class_type: 'LoadImage', inputs: { image: { __type: 'core/ASSET', info: { id: asset.body.id } } } },
		'21': { class_type: 'PreviewImage', inputs: { images: ['20', 0] } },
	};
	const job = await call(
		'POST',
		'/api/v2/jobs',
		{ workflow, extra_data: { api_key_comfy_org: sim.apiKey } },
		{ ...auth(), 'idempotency-key': 'run-1' },
	);
	const events = await openStream(`${sim.baseUrl}/api/v2/jobs/${job.body.id}/events`, auth());
	expect(await events.done).toBe('end');
	await waitUntil(() => sim.v2.jobs.get(job.body.id)?.status === 'succeeded');
	await call('GET', job.body.urls.self);
	await call('GET', `/api/v2/jobs/${job.body.id}/workflow`);
	await call('GET', `/api/v2/assets/${asset.body.id}/content`);
	await call('HEAD', `/api/v2/assets/by-hash/${encodeURIComponent(asset.body.hash)}`);
	expect(sim.v2.exchanges.length).toBe(7);
	expect(contractBreaches(sim)).toEqual([]);
});

test('requests outside the contract are named: an open extra_data, a non-Bearer Authorization, a form without its fields', async () => {
	await call('POST', '/api/v2/jobs', { workflow: WORKFLOW, extra_data: { client_id: 'c' } });
	await call('GET', '/api/v2/jobs/x', undefined, { authorization: `Key ${sim.apiKey}` });
	await call('POST', '/api/v2/assets', uploadForm(Buffer.from('x'), { content_type: 'text/plain' }, false));
	const breaches = requestBreaches(sim);
	expect(breaches).toEqual([
		'request POST /api/v2/jobs: POST /api/v2/jobs: body.extra_data.client_id is not allowed (closed object)',
		'request GET /api/v2/jobs/x: GET /api/v2/jobs/{id}: Authorization is not "Bearer <key>"',
		'request POST /api/v2/assets: POST /api/v2/assets: form field file_path is required',
	]);
	expect(breaches.join('\n')).not.toContain(sim.apiKey);
	expect(answerBreaches(sim)).toEqual([]);
});

test('an answer outside the contract is named: a status the operation does not list, a body of the wrong shape', () => {
	const exchanges = sim.v2.exchanges as unknown as object[];
	const answer = (status: number, responseText: string) => ({
		method: 'GET',
		path: '/api/v2/jobs/x',
		headers: {},
		status,
		responseHeaders: { 'content-type': 'application/json' },
		responseText,
		complete: true,
	});
	exchanges.push(answer(402, '{"error":{"code":"insufficient_credits","message":"m"}}'), answer(404, '{"code":"not_found"}'));
	expect(answerBreaches(sim)).toEqual([
		'answer to GET /api/v2/jobs/x: GET /api/v2/jobs/{id} 402: the contract lists no 402 for this operation',
		'answer to GET /api/v2/jobs/x: GET /api/v2/jobs/{id} 404: body.error is required',
	]);
	exchanges.length = 0;
});
