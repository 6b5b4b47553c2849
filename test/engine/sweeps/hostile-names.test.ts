/**
 * Defects the structural sweep (hostile-structures-input.test.ts) found in what the user and
 * expressions give the nodes, fixed at their shared mechanism, each run through n8n's engine
 * against a loopback service that records every request:
 * - a value nested too deep for n8n's own parameter reader ended in "Maximum call stack size
 *   exceeded" (per item, and for settings of the whole run read from the first item);
 * - a binary field named like something every object carries (`constructor`, `toString`) was
 *   taken for a file the item has; `__proto__` as the field files go to lost the file;
 * - a list or object given for a binary field name, an upload Type or a Node Class was shown as
 *   "[object Object]".
 */
import type { IDataObject } from 'n8n-workflow';

import { EngineHarness } from '../../support/engine';
import type { HarnessItem } from '../../support/items-node';
import { txt2img } from '../../support/cloud';
import { sendJson, startHostileService, type HostileService } from '../../support/hostile-service';
import { PNG } from '../../support/sweep-operations';
import { hostApiCredential, hostCloudApiCredential } from '../../support/credential-fixtures';

const harness = new EngineHarness();
let service: HostileService;
let cloud: string;
let api: string;

beforeAll(async () => {
	service = await startHostileService((_req, res) => sendJson(res, 400, { message: 'refused' }));
	cloud = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: 'cloud-key-hostile-names-0123', baseUrl: service.url }));
	api = harness.addCredential('hostApi', hostApiCredential({ accessToken: 'access-token-hostile-names-0123', registryUrl: service.url }));
});
afterEach(() => {
	service.seen.length = 0;
});
afterAll(async () => await service.close());

const WITH_PNG: HarnessItem = {
	json: {},
	binaryBase64: { data: { data: PNG.toString('base64'), fileName: 'photo.png', mimeType: 'image/png' } },
};

async function run(type: string, parameters: IDataObject, item: HarnessItem = WITH_PNG) {
	const credentials: Record<string, string> = type === 'hostCloud' ? { hostCloudApi: cloud } : { hostApi: api };
	const result = await harness.runNode({ type, parameters: parameters as never, credentials }, [item]);
	return { message: result.error('Node')?.message, sent: service.seen.map((request) => `${request.method} ${request.url}`) };
}

const deep = (levels: number) => `={{ JSON.parse(${JSON.stringify(`${'['.repeat(levels)}${']'.repeat(levels)}`)}) }}`;
const TOO_DEEP = 'A value given to this node is nested too deep to be read';

describe('a value too deep for n8n to read is refused in words', () => {
	it('for a field of the item (Prompt ID)', async () => {
		expect(await run('hostCloud', { resource: 'workflow', operation: 'getStatus', promptId: deep(20_000) })).toEqual({
			message: TOO_DEEP,
			sent: [],
		});
	});

	it('for a setting of the whole run (Include Preview Image)', async () => {
		const parameters = {
			resource: 'workflow',
			operation: 'execute',
			workflow: JSON.stringify(txt2img()),
			additionalFields: { includePreview: deep(20_000) },
		};
		expect(await run('hostCloud', parameters)).toEqual({ message: TOO_DEEP, sent: [] });
	});
});

describe('binary field names every object carries are names like any other', () => {
	it.each(['constructor', 'toString', 'hasOwnProperty'])(
		'Host Cloud Upload Image from a field named %s: no such field, nothing sent',
		async (name) => {
			const result = await run('hostCloud', { resource: 'file', operation: 'uploadImage', binaryPropertyName: name });
			expect(result).toEqual({ message: `Input Binary Field: the input item has no binary property "${name}"`, sent: [] });
		},
	);

	it.each(['constructor', 'valueOf'])('Host Media Upscale from a field named %s: no such field, nothing sent', async (name) => {
		const result = await run('hostMedia', {
			resource: 'image',
			operation: 'upscale',
			imageSource: 'binary',
			imageBinaryProperty: name,
			waitMode: 'none',
		});
		expect(result.message).toMatch(new RegExp(`names the binary field "${name}", which the input item does not have \\(it has: data\\)`));
		expect(result.sent).toEqual([]);
	});

	it('Put Output File in Field "__proto__" is refused by name before anything is fetched', async () => {
		const download = { resource: 'file', operation: 'downloadOutput', filename: 'a.png' };
		const result = await run('hostCloud', { ...download, binaryPropertyName: '__proto__' });
		expect(result).toEqual({ message: 'Put Output File in Field cannot be "__proto__": choose another name, such as "data"', sent: [] });
	});
});

describe('a list or object where a name goes is refused as such, never shown as "[object Object]"', () => {
	it.each([
		['Input Binary Field', { resource: 'file', operation: 'uploadImage', binaryPropertyName: '={{ {"a": 1} }}' }],
		['Type', { resource: 'file', operation: 'uploadImage', additionalFields: { type: '={{ ["input"] }}' } }],
		['Node Class', { resource: 'system', operation: 'getNodeDefinitions', nodeClass: '={{ {"name": "KSampler"} }}' }],
	])('%s', async (field, parameters) => {
		const result = await run('hostCloud', parameters);
		// An option field (the upload's Type) says what it allows instead.
		expect(result.message).toMatch(new RegExp(`^${field} must be (text|one of [a-z, ]+) \\(got `));
		expect(result.message).not.toContain('[object Object]');
		expect(result.sent).toEqual([]);
	});
});
