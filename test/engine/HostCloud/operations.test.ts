/**
 * The Host Cloud operations other than Execute, through n8n's engine against the simulator:
 * Workflow → Submit / Get Status / Wait for Completion, File → Upload Image / Upload Mask / Get
 * Output URL / Download Output, Queue → Get / Cancel Jobs / Interrupt Running.
 */
import axios from 'axios';

import { readBinary } from '../../support/engine';
import { cloudForSuite, FAST_WAIT, OUTLASTING_NODE_MS, TINY_PNG as PNG, txt2img, waitUntil, withoutWebSocket } from '../../support/cloud';

const cloud = cloudForSuite();

type Item = { json: Record<string, unknown>; binaryBase64?: Record<string, { data: string; fileName?: string; mimeType?: string }> };

function run(
	resource: string,
	operation: string,
	parameters: Record<string, unknown> = {},
	items: Item[] = [{ json: {} }],
	continueOnFail = false,
) {
	return cloud.harness.runNode(
		{
			type: 'hostCloud',
			parameters: { resource, operation, ...parameters },
			credentials: { hostCloudApi: cloud.credential },
			continueOnFail,
		},
		items,
	);
}

const withImage = (name = 'cat.png'): Item => ({
	json: {},
	binaryBase64: { data: { data: PNG.toString('base64'), fileName: name, mimeType: 'image/png' } },
});

async function submitJob(): Promise<string> {
	const submitted = await run('workflow', 'submit', { workflow: JSON.stringify(txt2img()) });
	expect(submitted.status).toBe('success');
	return submitted.items[0]!.json.prompt_id as string;
}

describe('Workflow', () => {
	test('Submit answers the prompt_id at once; Get Status and Wait for Completion pick the job up', async () => {
		const { sim } = cloud;
		sim.options.nodeMs = 150; // still running when Get Status asks
		const submitted = await run('workflow', 'submit', { workflow: JSON.stringify(txt2img()) });
		const promptId = submitted.items[0]!.json.prompt_id as string;
		expect(submitted.items[0]!.json).toMatchObject({ prompt_id: expect.any(String), status: 'submitted', number: expect.any(Number) });
		expect(sim.cloud.jobs.get(promptId)?.status).not.toBe('completed');

		const early = await run('workflow', 'getStatus', { promptId });
		expect(early.items[0]!.json).toMatchObject({
			prompt_id: promptId,
			status: expect.stringMatching(/pending|in_progress/),
			state: 'running',
			finished: false,
		});

		const waited = await run('workflow', 'waitForCompletion', { promptId, downloadFiles: true, waitOptions: FAST_WAIT }, [
			{ json: { promptId } },
		]);
		expect(waited.status).toBe('success');
		const json = waited.items[0]!.json as Record<string, any>;
		expect(json).toMatchObject({ prompt_id: promptId, status: 'completed', outputs_from_job_record: true });
		expect(json.images[0]).toMatchObject({ node_id: '9', binary_property: 'data', url: expect.stringContaining(sim.storageUrl) });
		expect((await readBinary(waited.items[0]!.binary!.data!)).subarray(1, 4).toString()).toBe('PNG');

		const done = await run('workflow', 'getStatus', { promptId, additionalFields: { includeOutputs: true } });
		expect(done.items[0]!.json).toMatchObject({
			status: 'completed',
			state: 'completed',
			finished: true,
			images: [expect.objectContaining({ filename: json.images[0].filename })],
		});
		expect(sim.counters.storageCredentialAttempts).toBe(0);
	});

	test('Wait for Completion on a job that already finished, and without a WebSocket', async () => {
		const { sim } = cloud;
		const promptId = await submitJob();
		await waitUntil(() => sim.cloud.jobs.get(promptId)?.status === 'completed');
		const waited = await run('workflow', 'waitForCompletion', { promptId, waitOptions: FAST_WAIT });
		expect(waited.items[0]!.json).toMatchObject({ prompt_id: promptId, status: 'completed' });

		const again = await withoutWebSocket(() => run('workflow', 'waitForCompletion', { promptId, waitOptions: FAST_WAIT }));
		expect(again.items[0]!.json).toMatchObject({ prompt_id: promptId, status: 'completed' });
	});

	test('Wait for Completion of several jobs shares one WebSocket and keeps item order', async () => {
		const { sim } = cloud;
		const ids = [await submitJob(), await submitJob(), await submitJob()];
		sim.counters.wsConnections = 0;
		const waited = await run(
			'workflow',
			'waitForCompletion',
			{ promptId: '={{ $json.id }}', waitOptions: FAST_WAIT },
			ids.map((id) => ({ json: { id } })),
		);
		expect(waited.items.map((item) => item.json.prompt_id)).toEqual(ids);
		expect(sim.counters.wsConnections).toBe(1);
	});

	test('Wait for Completion reports a failed job in plain words, and does not cancel jobs it did not start', async () => {
		const { sim } = cloud;
		sim.cloud.failNextJob({ exception_type: 'ModelDownloadError', exception_message: 'no such model', nodeId: '4' });
		const failedId = await submitJob();
		const failed = await run('workflow', 'waitForCompletion', { promptId: failedId, waitOptions: FAST_WAIT }, [{ json: {} }], true);
		expect(failed.items[0]!.json.error).toMatch(
			new RegExp(`^Job ${failedId} failed at node 4 \\(CheckpointLoaderSimple\\): a model the workflow needs`),
		);

		sim.options.nodeMs = OUTLASTING_NODE_MS;
		const slowId = await submitJob();
		const timedOut = await run(
			'workflow',
			'waitForCompletion',
			{ promptId: slowId, waitOptions: { ...FAST_WAIT, maxWaitMinutes: 0.2 / 60, onTimeout: 'keep' } },
			[{ json: {} }],
			true,
		);
		expect(timedOut.items[0]!.json.error).toMatch(/still running on the cloud/);
		expect(sim.cloud.jobs.get(slowId)?.status).not.toBe('cancelled');
	});

	test('an unknown prompt_id is a clear 404; a malformed one never leaves n8n', async () => {
		const { sim } = cloud;
		const unknown = await run('workflow', 'getStatus', { promptId: '00000000-0000-4000-8000-000000000000' });
		expect(unknown.error('Node')?.message).toMatch(
			/^Not found while reading the status of job 00000000-0000-4000-8000-000000000000 \(HTTP 404\)/,
		);
		const waited = await run('workflow', 'waitForCompletion', {
			promptId: '00000000-0000-4000-8000-000000000000',
			waitOptions: FAST_WAIT,
		});
		expect(waited.error('Node')?.message).toBe('The cloud has no job 00000000-0000-4000-8000-000000000000 (HTTP 404)');
		sim.reset();
		for (const operation of ['getStatus', 'waitForCompletion']) {
			const empty = await run('workflow', operation, { promptId: '={{ $json.missing }}' });
			expect(empty.error('Node')?.message).toBe('Prompt ID is required');
			const bad = await run('workflow', operation, { promptId: '../../api/interrupt' });
			expect(bad.error('Node')?.message).toBe('Prompt ID must be a single prompt_id (got "../../api/interrupt")');
		}
		expect(sim.requests).toHaveLength(0);
	});
});

describe('File', () => {
	test('Upload Image sends the binary with type and overwrite; Upload Mask names its image in original_ref', async () => {
		const { sim } = cloud;
		const image = await run('file', 'uploadImage', { binaryPropertyName: 'data', additionalFields: { overwrite: true } }, [withImage()]);
		expect(image.status).toBe('success');
		const uploaded = image.items[0]!.json as Record<string, string>;
		expect(uploaded).toMatchObject({
			name: expect.stringMatching(/^[0-9a-f]{64}\.png$/),
			subfolder: '',
			type: 'input',
			load_image_value: uploaded.name,
		});
		expect(sim.cloud.uploads[0]).toMatchObject({
			name: uploaded.name,
			type: 'input',
			mask: false,
			contentType: 'image/png',
			size: PNG.length,
		});

		const mask = await run('file', 'uploadMask', { binaryPropertyName: 'data', originalFilename: uploaded.name }, [withImage('mask.png')]);
		expect(mask.status).toBe('success');
		expect(mask.items[0]!.json).toMatchObject({ type: 'input', original_ref: { filename: uploaded.name, subfolder: '', type: 'input' } });
		expect(sim.cloud.uploads[1]).toMatchObject({ mask: true });
		expect(sim.requestsTo('POST', '/api/upload/mask')[0]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
	});

	test('a mask for an image that was never uploaded gets the service’s 404 in plain words', async () => {
		const mask = await run('file', 'uploadMask', { binaryPropertyName: 'data', originalFilename: 'nope.png' }, [withImage('mask.png')]);
		expect(mask.error('Node')?.message).toMatch(/^Not found while uploading the mask "mask.png" \(HTTP 404\): original_ref names nope.png/);
	});

	test('uploads check their fields before sending', async () => {
		const { sim } = cloud;
		const missing = await run('file', 'uploadImage', { binaryPropertyName: 'photo' }, [withImage()]);
		expect(missing.error('Node')?.message).toBe('Input Binary Field: the input item has no binary property "photo"');
		const noOriginal = await run('file', 'uploadMask', { binaryPropertyName: 'data', originalFilename: ' ' }, [withImage()]);
		expect(noOriginal.error('Node')?.message).toBe('Original Image Name is required');
		const badType = await run('file', 'uploadImage', { binaryPropertyName: 'data', additionalFields: { type: 'models' } }, [withImage()]);
		expect(badType.error('Node')?.message).toBe('Type must be one of input, output, temp (got "models")');
		const badOverwrite = await run(
			'file',
			'uploadImage',
			{ binaryPropertyName: 'data', additionalFields: { overwrite: '={{ "maybe" }}' } },
			[withImage()],
		);
		expect(badOverwrite.error('Node')?.message).toBe('Overwrite must be true or false (got "maybe")');
		expect(sim.requests).toHaveLength(0);
	});

	test('Get Output URL and Download Output take a file reference; storage never sees the key', async () => {
		const { sim } = cloud;
		const executed = await run('workflow', 'execute', { workflow: JSON.stringify(txt2img()), waitOptions: FAST_WAIT });
		const image = (executed.items[0]!.json.images as Array<Record<string, string>>)[0]!;

		const url = await run(
			'file',
			'getOutputUrl',
			{ filename: '={{ $json.filename }}', subfolder: '={{ $json.subfolder }}', fileType: '={{ $json.type }}' },
			[{ json: image }],
		);
		expect(url.items[0]!.json).toMatchObject({
			filename: image.filename,
			subfolder: '',
			type: 'output',
			mime_type: 'image/png',
			url: expect.stringContaining(sim.storageUrl),
		});

		const downloaded = await run('file', 'downloadOutput', { filename: image.filename, binaryPropertyName: 'picture' });
		const binary = downloaded.items[0]!.binary!.picture!;
		expect(binary).toMatchObject({ fileName: image.filename, mimeType: 'image/png' });
		const served = await axios.get(url.items[0]!.json.url as string, { responseType: 'arraybuffer' });
		expect((await readBinary(binary)).equals(Buffer.from(served.data))).toBe(true);
		expect(sim.counters.storageCredentialAttempts).toBe(0);
		expect(
			sim
				.requestsTo(undefined, '/o/')
				.every((request) => request.headers['x-api-key'] === undefined && request.headers.authorization === undefined),
		).toBe(true);
	});

	test('a file reference and the output field are checked before sending', async () => {
		const { sim } = cloud;
		const noName = await run('file', 'getOutputUrl', { filename: '={{ " " }}' });
		expect(noName.error('Node')?.message).toBe('File Name is required');
		const badType = await run('file', 'downloadOutput', { filename: 'a.png', fileType: '={{ "models" }}' });
		expect(badType.error('Node')?.message).toBe('Type must be one of input, temp, output (got "models")');
		const noField = await run('file', 'downloadOutput', { filename: 'a.png', binaryPropertyName: '={{ "" }}' });
		expect(noField.error('Node')?.message).toBe('Put Output File in Field is required');
		const badOriginalType = await run(
			'file',
			'uploadMask',
			{ binaryPropertyName: 'data', originalFilename: 'a.png', additionalFields: { originalType: 'models' } },
			[withImage()],
		);
		expect(badOriginalType.error('Node')?.message).toMatch(/^Original Image Type must be one of input, output, temp \(got "models"\)/);
		expect(sim.requests).toHaveLength(0);
	});

	test('an unknown file is a clear 404; an expired signed URL a clear download error', async () => {
		const { sim } = cloud;
		const unknown = await run('file', 'getOutputUrl', { filename: 'missing.png' });
		expect(unknown.error('Node')?.message).toMatch(/^Not found while getting the address of output file "missing.png" \(HTTP 404\)/);

		const executed = await run('workflow', 'execute', { workflow: JSON.stringify(txt2img()), waitOptions: FAST_WAIT });
		const image = (executed.items[0]!.json.images as Array<Record<string, string>>)[0]!;
		sim.faults.expiredSignedUrls = true;
		const expired = await run('file', 'downloadOutput', { filename: image.filename });
		expect(expired.error('Node')?.message).toBe(`Could not download output file "${image.filename}" (HTTP 403)`);
	});
});

describe('Queue', () => {
	test('Get lists running and pending jobs; Cancel Jobs cancels only the ones named', async () => {
		const { sim } = cloud;
		// None may finish on its own while four node runs look at the queue, however slow the machine.
		sim.options.nodeMs = OUTLASTING_NODE_MS;
		const ids: string[] = [];
		for (let i = 0; i < 4; i++) ids.push(await submitJob());
		const queue = await run('queue', 'get');
		expect(queue.items[0]!.json).toMatchObject({ running_count: 3, pending_count: 1 });
		expect((queue.items[0]!.json.pending as Array<{ prompt_id: string }>)[0]!.prompt_id).toBe(ids[3]);
		expect((queue.items[0]!.json.running as Array<Record<string, unknown>>)[0]).toEqual({
			number: expect.any(Number),
			prompt_id: ids[0],
			output_node_ids: ['9'],
		});

		const cancelled = await run('queue', 'cancelJobs', { promptIds: `${ids[3]}, ${ids[0]}` });
		expect(cancelled.items[0]!.json).toEqual({ requested: [ids[3], ids[0]], cancelled: [ids[3], ids[0]], not_cancelled: [] });
		expect([ids[0], ids[3]].map((id) => sim.cloud.jobs.get(id)!.status)).toEqual(['cancelled', 'cancelled']);
		expect([ids[1], ids[2]].map((id) => sim.cloud.jobs.get(id)!.status)).toEqual(['in_progress', 'in_progress']);
		expect(JSON.parse(sim.requestsTo('POST', '/api/queue')[0]!.body)).toEqual({ delete: [ids[3], ids[0]] });

		const interrupted = await run('queue', 'interrupt');
		expect(interrupted.items[0]!.json).toEqual({ interrupted: true, interrupted_prompt_ids: [ids[1], ids[2]] });
		expect([ids[1], ids[2]].map((id) => sim.cloud.jobs.get(id)!.status)).toEqual(['cancelled', 'cancelled']);
	});

	test('Cancel Jobs checks its prompt IDs before sending', async () => {
		const { sim } = cloud;
		const empty = await run('queue', 'cancelJobs', { promptIds: ' , ' });
		expect(empty.error('Node')?.message).toBe('Prompt IDs is required');
		const bad = await run('queue', 'cancelJobs', { promptIds: 'abc, not/an id' });
		expect(bad.error('Node')?.message).toBe('Prompt IDs holds "not/an", which is not a prompt_id');
		expect(sim.requests).toHaveLength(0);
	});
});

test('Wait for Completion with the same prompt_id on two items waits once and answers both', async () => {
	const promptId = await submitJob();
	const waited = await run('workflow', 'waitForCompletion', { promptId, waitOptions: FAST_WAIT }, [{ json: {} }, { json: {} }]);
	expect(waited.items.map((item) => [item.json.prompt_id, item.json.status, item.pairedItem])).toEqual([
		[promptId, 'completed', { item: 0 }],
		[promptId, 'completed', { item: 1 }],
	]);
});
