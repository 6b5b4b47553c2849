/**
 * Outside attack on Execute's Set Inputs taking an `asset_reference` (docs/host-cloud.md, "Files on
 * v2"): look-alike objects (another `__type`, no info id, a nested id, a list), extra keys, a huge
 * id, `__proto__`, as objects, JSON text and expressions, on v2 and on v1. A reference is posted as
 * it is on v2, refused by name on v1; anything else into a file-name input is refused by name before
 * anything is sent, and nothing leaks into n8n's objects.
 */
import { randomUUID } from 'node:crypto';

import { API_KEY, executeParameters, json, nodeSpec, useHostileV2, visible, wellBehaved } from './hostile-v2';
import { hostCloudApiCredential } from '../../../support/credential-fixtures';
import { txt2img } from '../../../support/cloud';

let v1Credential = '';
const v2 = useHostileV2((server) => {
	v1Credential = server.harness.addCredential(
		'hostCloudApi',
		hostCloudApiCredential({ apiKey: API_KEY, baseUrl: server.api.url }),
		'Host Cloud API',
	);
});

const withLoader = () => ({ ...txt2img(), '20': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } } });
const ID = 'b0c1d2e3-f405-4617-8829-3a4b5c6d7e8f';
const REFERENCE = { __type: 'core/ASSET', info: { id: ID, file_path: 'cat.png' } };

/** Execute on `generation` with node 20's `image` set by Set Inputs to `value`, on one item holding `ref`. */
function run(value: unknown, generation: 'v1' | 'v2' = 'v2', ref: unknown = REFERENCE, answer = wellBehaved({ id: randomUUID() })) {
	v2.answer = answer;
	const parameters = executeParameters({
		workflow: JSON.stringify(withLoader()),
		inputOverrides: { values: [{ nodeId: '20', inputName: 'image', value }] },
	});
	const spec =
		generation === 'v2'
			? nodeSpec(v2, parameters)
			: { type: 'hostCloud', parameters: { ...parameters, apiGeneration: 'v1' } as never, credentials: { hostCloudApi: v1Credential } };
	return v2.harness.runNode(spec, [{ json: { ref } }]);
}
const posted = () => {
	const submit = v2.api.seen.find((r) => r.method === 'POST' && r.url === '/api/v2/jobs');
	return (
		submit && (JSON.parse(submit.body) as { workflow: Record<string, { inputs: Record<string, unknown> }> }).workflow['20']!.inputs.image
	);
};

describe('on v2', () => {
	test.each([
		['the object, by expression', '={{ $json.ref }}'],
		['its JSON text, by expression', '={{ JSON.stringify($json.ref) }}'],
		['its JSON text, typed (spaces around it)', `  ${JSON.stringify(REFERENCE)}\n`],
	])('%s: posted as the reference it is', async (_name, value) => {
		const result = await run(value);

		expect(result.error('Node')?.message).toBeUndefined();
		expect(posted()).toEqual(REFERENCE);
	});

	test('extra keys (beside info, and inside it) are posted as they were given', async () => {
		const ref = { __type: 'core/ASSET', info: { id: ID, file_path: 'cat.png', note: 'x' }, extra: [1, { deep: true }] };
		const result = await run('={{ $json.ref }}', 'v2', ref);

		expect(result.error('Node')?.message).toBeUndefined();
		expect(posted()).toEqual(ref);
	});

	test.each([
		['__type in lower case', { __type: 'core/asset', info: { id: ID } }],
		['__type with a space', { __type: 'core/ASSET ', info: { id: ID } }],
		['__type__ instead of __type', { __type__: 'core/ASSET', info: { id: ID } }],
		['no info', { __type: 'core/ASSET', id: ID }],
		['info a list', { __type: 'core/ASSET', info: [ID] }],
		['an empty id', { __type: 'core/ASSET', info: { id: '  ' } }],
		['a numeric id', { __type: 'core/ASSET', info: { id: 42 } }],
		['a nested id', { __type: 'core/ASSET', info: { id: { id: ID } } }],
		['a list of references', [REFERENCE]],
		['a two-element list (a link in the API format)', ['4', 0]],
	])('a look-alike (%s) into the file-name input: refused by name, nothing sent', async (_name, ref) => {
		const result = await run('={{ $json.ref }}', 'v2', ref);

		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/^Set Inputs \(entry 1\): input "image" of node "20" \(LoadImage\) needs text/);
		expect(v2.api.seen).toEqual([]);
	});

	test('a huge id (1 MB): posted once as given, or refused in words; the message is bounded and holds no key', async () => {
		const ref = { __type: 'core/ASSET', info: { id: 'a'.repeat(1_000_000) } };
		const result = await run('={{ $json.ref }}', 'v2', ref, (_req, res) =>
			json(res, 422, { error: { code: 'missing_asset', message: `no asset ${'a'.repeat(1_000_000)}`, details: {} } }),
		);

		expect(result.status).toBe('error');
		const submits = v2.api.seen.filter((r) => r.url === '/api/v2/jobs');
		expect(submits.length).toBeLessThanOrEqual(1);
		if (submits.length) expect(posted()).toEqual(ref);
		expect(String(result.error('Node')?.message).length).toBeLessThan(5_000);
		expect(visible(result)).not.toContain(API_KEY);
	});

	test('__proto__ inside the JSON text pollutes nothing; the reference is posted or refused in words', async () => {
		const text = `{"__type":"core/ASSET","info":{"id":"${ID}","__proto__":{"polluted":"yes"}},"__proto__":{"polluted":"yes"}}`;
		const result = await run(text);

		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
		expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
		if (result.status === 'success') expect((posted() as { info: { id: string } }).info.id).toBe(ID);
		else expect(result.error('Node')?.message).toBeTruthy();
	});

	test('a reference into a number input (steps): refused by name, nothing sent', async () => {
		const id = randomUUID();
		v2.answer = wellBehaved({ id });
		const result = await v2.harness.runNode(
			nodeSpec(v2, executeParameters({ inputOverrides: { values: [{ nodeId: '3', inputName: 'steps', value: '={{ $json.ref }}' }] } })),
			[{ json: { ref: REFERENCE } }],
		);

		expect(result.error('Node')?.message).toMatch(/needs a number, and an object was given/);
		expect(v2.api.seen).toEqual([]);
	});
});

describe('on v1', () => {
	test('the object: refused by name (only v2 takes one), nothing sent', async () => {
		const result = await run('={{ $json.ref }}', 'v1');

		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/asset reference \(core\/ASSET\).*only the v2 API takes/);
		expect(v2.api.seen).toEqual([]);
	});

	// docs/host-cloud.md, "Files on v2": "Only v2 takes one: with a Host Cloud API credential Set
	// Inputs refuses it by name." Its JSON text is the same reference; v1 would look for a file named so.
	test('its JSON text: refused by name as the object is, nothing sent', async () => {
		const result = await run('={{ JSON.stringify($json.ref) }}', 'v1');

		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/asset reference \(core\/ASSET\).*only the v2 API takes/);
		expect(v2.api.seen).toEqual([]);
	});

	test('a text that only looks like JSON (not a reference) stays the file name it is', async () => {
		// Refused once posted: only what was posted matters here.
		v2.answer = (_req, res) => json(res, 400, { error: { type: 'invalid_prompt', message: 'no such file' }, node_errors: {} });
		const parameters = executeParameters({
			workflow: JSON.stringify(withLoader()),
			inputOverrides: { values: [{ nodeId: '20', inputName: 'image', value: '{odd}.png' }] },
			waitOptions: { pollIntervalSeconds: 0.1, maxWaitMinutes: 0.02, useWebSocket: false },
		});
		await v2.harness.runNode(
			{ type: 'hostCloud', parameters: { ...parameters, apiGeneration: 'v1' } as never, credentials: { hostCloudApi: v1Credential } },
			[{ json: {} }],
		);

		const submit = v2.api.seen.find((r) => r.url === '/api/prompt');
		expect((JSON.parse(submit!.body) as { prompt: Record<string, { inputs: { image?: unknown } }> }).prompt['20']!.inputs.image).toBe(
			'{odd}.png',
		);
	});
});
