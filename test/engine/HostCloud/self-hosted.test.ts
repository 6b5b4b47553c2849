/**
 * What is particular to a self-hosted ComfyUI-compatible server, through n8n's engine against the
 * simulator's self-hosted flavour behind a reverse proxy that wants a header: the credential test,
 * a credential that cannot be used refused before anything is sent, the proxy's refusal in plain
 * words, the platform key for partner nodes only when one is configured (and never shown), the
 * history's words for jobs it does not know, and file links checked at the server.
 */
import axios from 'axios';

import { UNAVAILABLE_CHECKPOINTS } from '../../../simulator/cloud/catalogue';
import { cloudForSuite, credentialFor, type Graph, PROXY_HEADER, txt2img } from '../../support/cloud';

const PLATFORM_KEY = 'platform-key-for-partner-nodes-4471';
const PARTNER: Graph = {
	'1': { class_type: 'PartnerImageGenerate', inputs: { prompt: 'a castle', width: 1024, height: 1024, seed: 1 } },
	'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'partner' } },
};

const cloud = cloudForSuite({ flavour: 'self-hosted' });

/** A self-hosted credential for the simulator with changes (no proxy header, a platform key...). */
function credential(changes: Record<string, unknown>): string {
	return cloud.harness.addCredential('hostCloudApi', { ...credentialFor(cloud.sim), ...changes } as never);
}

function run(parameters: Record<string, unknown>, options: { credential?: string; continueOnFail?: boolean } = {}) {
	return cloud.harness.runNode(
		{
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'execute', workflow: JSON.stringify(txt2img()), ...parameters },
			credentials: { hostCloudApi: options.credential ?? cloud.credential },
			continueOnFail: options.continueOnFail,
		},
		[{ json: {} }],
	);
}

describe('the credential', () => {
	test('its test passes with the proxy header and fails in plain words without it', async () => {
		const passed = await cloud.harness.testCredential('hostCloudApi', credentialFor(cloud.sim));
		expect(passed).toMatchObject({ status: 'OK' });
		expect(cloud.sim.requestsTo('GET', '/api/object_info/KSampler')).toHaveLength(1);

		const refused = await cloud.harness.testCredential('hostCloudApi', { ...credentialFor(cloud.sim), proxyHeaders: { values: [] } });
		expect(refused.status).toBe('Error');
		expect(refused.message).toMatch(/self-hosted server, your reverse proxy refused the request: check the Proxy Headers/);
	});

	const withPassword = (baseUrl: string) => ({ serverUrl: baseUrl.replace('http://', 'http://user:secret-pass@') });
	test.each([
		[
			'a header name HTTP does not allow',
			() => ({ proxyHeaders: { values: [{ name: 'X Proxy Token', value: PROXY_HEADER.value }] } }),
			/Proxy header 1 \("X Proxy Token"\) has a name HTTP does not allow/,
		],
		[
			'a header the node sets itself',
			() => ({ proxyHeaders: { values: [{ name: 'Content-Type', value: 'text/plain' }] } }),
			/Proxy header 1 \("Content-Type"\) would replace a header the node sets itself/,
		],
		['a password in the address', withPassword, /Server URL holds a user name or password \(put them in Proxy Headers/],
		['an address that is not one', () => ({ serverUrl: 'localhost:8188' }), /Server URL does not start with http:\/\/ or https:\/\//],
	])('one with %s is refused before anything is sent', async (_what, changes, message) => {
		const result = await run({}, { credential: credential(changes(cloud.sim.baseUrl)), continueOnFail: true });
		expect(result.items[0]!.json.error).toMatch(/^The Host Cloud API credential cannot be used: /);
		expect(result.items[0]!.json.error).toMatch(message);
		expect(JSON.stringify(result.items)).not.toContain('secret-pass');
		expect(cloud.sim.requests).toHaveLength(0);
		expect(cloud.sim.cloud.wsHandshakes).toHaveLength(0);
	});

	test('the proxy’s refusal is told in plain words, never as a wrong API key', async () => {
		const result = await run({}, { credential: credential({ proxyHeaders: { values: [] } }), continueOnFail: true });
		const json = result.items[0]!.json as Record<string, string>;
		expect(json.error).toMatch(
			/^Your server \(or the reverse proxy in front of it\) refused the request while submitting the workflow \(HTTP 401\)/,
		);
		expect(json.error).not.toMatch(/API key/);
		expect(cloud.sim.cloud.jobs.size).toBe(0);
	});

	test('the proxy header goes only to the server: never to a file link, and never shown', async () => {
		const result = await run({ downloadFiles: true });
		expect(result.status).toBe('success');
		// Every request and the socket carried it; the simulator's log masks it.
		expect(cloud.sim.requests.every((request) => request.headers['x-proxy-token'] !== undefined)).toBe(true);
		// This run's handshake: the previous test's refused one can reach the server after its reset.
		const clientId = cloud.sim.cloud.jobs.get(result.items[0]!.json.prompt_id as string)!.clientId;
		expect(cloud.sim.cloud.wsHandshakes.filter((handshake) => handshake.clientId === clientId)).toEqual([
			expect.objectContaining({ accepted: true, token: '' }),
		]);
		expect(JSON.stringify(result.run.data)).not.toContain(PROXY_HEADER.value);
		expect(cloud.sim.counters.storageCredentialAttempts).toBe(0);
	});
});

describe('partner nodes', () => {
	test('with no platform key configured, nothing is injected and the server’s refusal names the node', async () => {
		const result = await run({ workflow: JSON.stringify(PARTNER) }, { continueOnFail: true });
		const job = cloud.sim.cloud.jobs.get(result.items[0]!.json.prompt_id as string)!;
		expect(job.extraDataKeys).not.toContain('api_key_host_org');
		expect(result.items[0]!.json.error).toMatch(/partner node PartnerImageGenerate \(node 1\) needs your platform API key/);
	});

	test('a configured platform key goes in extra_data only, and shows nowhere, not even in the queue', async () => {
		const withKey = credential({ platformApiKey: PLATFORM_KEY });
		const result = await run({ workflow: JSON.stringify(PARTNER) }, { credential: withKey });
		expect(result.status).toBe('success');
		const job = cloud.sim.cloud.jobs.get(result.items[0]!.json.prompt_id as string)!;
		// Under the name the upstream server reads (the cloud's name is api_key_host_org).
		expect(job.extraDataKeys).toContain('api_key_comfy_org');
		expect(job.extraDataKeys).not.toContain('api_key_host_org');
		expect(job.status).toBe('completed');
		for (const request of cloud.sim.requests) expect(Object.values(request.headers).join(' ')).not.toContain(PLATFORM_KEY);
		expect(JSON.stringify(result.run.data)).not.toContain(PLATFORM_KEY);

		// The server shows extra_data, the key included, in its queue: the node's Queue → Get does not.
		cloud.sim.options.nodeMs = 200;
		// Another seed: the same workflow again would be answered from the server's cache, never queued.
		const again = structuredClone(PARTNER);
		again['1']!.inputs.seed = 2;
		const pending = await run({ operation: 'submit', workflow: JSON.stringify(again) }, { credential: withKey });
		const raw = await axios.get(`${cloud.sim.baseUrl}/api/queue`, { headers: cloud.headers });
		expect(JSON.stringify(raw.data)).toContain(PLATFORM_KEY);
		const queue = await cloud.harness.runNode(
			{ type: 'hostCloud', parameters: { resource: 'queue', operation: 'get' }, credentials: { hostCloudApi: withKey } },
			[{ json: {} }],
		);
		expect(queue.items[0]!.json.running).toEqual([expect.objectContaining({ prompt_id: pending.items[0]!.json.prompt_id })]);
		expect(JSON.stringify(queue.run.data)).not.toContain(PLATFORM_KEY);
	});

	test('a workflow without partner nodes gets no key even when one is configured', async () => {
		const result = await run({}, { credential: credential({ platformApiKey: PLATFORM_KEY }) });
		expect(cloud.sim.cloud.jobs.get(result.items[0]!.json.prompt_id as string)!.extraDataKeys).not.toContain('api_key_host_org');
	});
});

describe('jobs of other clients', () => {
	test('Wait for Completion polls a job whose messages go to another client’s socket', async () => {
		cloud.sim.options.nodeMs = 40;
		const other = await axios.post(
			`${cloud.sim.baseUrl}/api/prompt`,
			{ prompt: txt2img(), client_id: 'someone-else' },
			{ headers: cloud.headers },
		);
		const promptId = other.data.prompt_id as string;
		// Silence would take a minute to notice: only polling the history can find this job's end.
		const waitOptions = { silenceSeconds: 60, pollIntervalSeconds: 0.05, maxWaitMinutes: 1 };
		const result = await run({ operation: 'waitForCompletion', promptId, waitOptions });
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ prompt_id: promptId, status: 'completed', outputs_from_job_record: true });
		expect(cloud.sim.cloud.wsHandshakes).toHaveLength(1);
		expect(cloud.sim.requestsTo('GET', `/api/history/${promptId}`).length).toBeGreaterThan(0);
	});
});

describe('jobs and files the server does not know', () => {
	const UNKNOWN = '00000000-0000-4000-8000-000000000000';

	test('Get Status and Wait for Completion say it is neither queued nor in the history', async () => {
		for (const operation of ['getStatus', 'waitForCompletion']) {
			const result = await run({ operation, promptId: UNKNOWN }, { continueOnFail: true });
			expect(result.items[0]!.json.error).toBe(`Your server has no job ${UNKNOWN}: it is neither in its queue nor in its history`);
		}
		// Asked where a self-hosted server keeps jobs: never the cloud's status or record routes.
		expect(cloud.sim.requestsTo('GET', '/api/job')).toHaveLength(0);
		expect(cloud.sim.requestsTo('GET', '/api/jobs')).toHaveLength(0);
	});

	test('Get Output URL checks the file is there; Download Output streams it from /api/view', async () => {
		const done = await run({});
		const image = (done.items[0]!.json.images as Array<Record<string, string>>)[0]!;
		const file = { filename: image.filename, subfolder: image.subfolder, type: image.type };
		const lookUp = (operation: string, reference: Record<string, string>) =>
			cloud.harness.runNode(
				{
					type: 'hostCloud',
					parameters: { resource: 'file', operation, ...reference },
					credentials: { hostCloudApi: cloud.credential },
					continueOnFail: true,
				},
				[{ json: {} }],
			);
		const url = await lookUp('getOutputUrl', file);
		expect(url.items[0]!.json.url).toBe(image.url);
		const downloaded = await lookUp('downloadOutput', file);
		expect(Object.values(downloaded.items[0]!.binary ?? {})[0]).toMatchObject({ fileName: image.filename, mimeType: 'image/png' });

		const missing = await lookUp('getOutputUrl', { ...file, filename: 'never_made_00001_.png' });
		expect(missing.items[0]!.json.error).toMatch(/^Not found while looking up output file "never_made_00001_.png" \(HTTP 404\)/);
	});
});

describe('what the server says, in the item', () => {
	test('an execution error names the node, its class and the exception, without the server’s trailing newline', async () => {
		const graph = txt2img();
		graph['4']!.inputs.ckpt_name = UNAVAILABLE_CHECKPOINTS[0];
		const result = await run({ workflow: JSON.stringify(graph) }, { continueOnFail: true });
		const json = result.items[0]!.json as Record<string, string>;
		// The server's exception_message ends with a newline, as upstream's does.
		const sent = cloud.sim.cloud.jobs.get(json.prompt_id)!;
		expect(sent.status).toBe('failed');
		expect(json.error).toBe(
			`Job ${json.prompt_id} failed at node 4 (CheckpointLoaderSimple): a model the workflow needs is not available or could not be downloaded (ModelDownloadError: Model ${UNAVAILABLE_CHECKPOINTS[0]} is not available on this service and could not be downloaded.)`,
		);
	});

	test('a refused workflow names the node, the input, the value and what the server allows', async () => {
		const graph = txt2img();
		graph['4']!.inputs.ckpt_name = 'no-such-model.safetensors';
		delete graph['5']!.inputs.batch_size;
		const result = await run({ workflow: JSON.stringify(graph) }, { continueOnFail: true });
		expect(result.items[0]!.json.error).toBe(
			"Your server rejected the request as invalid while submitting the workflow (HTTP 400): Prompt outputs failed validation: Node 4 (CheckpointLoaderSimple): input ckpt_name: 'no-such-model.safetensors' is not in the list (allowed: 'v1-5-pruned-emaonly.safetensors', 'v1-5-pruned-emaonly-fp16.safetensors', 'sd_xl_base_1.0.safetensors', 'sd_xl_refiner_1.0.safetensors', 'sd3.5_medium.safetensors' and 4 more); Node 5 (EmptyLatentImage): required input batch_size is missing",
		);
	});
});
