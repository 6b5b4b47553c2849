/**
 * Host Media, image resource, run by n8n's engine against the simulator: every operation end to
 * end (submit, poll, result URL and file), the three image sources, and every status path.
 */
import { ChaosFaults } from '../../../simulator/shared/chaos';
import { readBinary } from '../../support/engine';
import { FAST, IMAGE_URL, PNG, PNG_BASE64, PNG_SIGNATURE, useMediaEnv } from '../../support/media';

const env = useMediaEnv();
const IMAGING = '/proxy/imaging/v1/ai';

/** The JSON body of the one submit the node sent to `path`. */
function submitted(path: string): Record<string, unknown> {
	const posts = env.sim.requestsTo('POST', path);
	expect(posts).toHaveLength(1);
	return JSON.parse(posts[0]!.body) as Record<string, unknown>;
}

describe('Host Media: image operations', () => {
	it('Upscale 4x: the item carries the generated URL and the file, downloaded without credentials', async () => {
		const result = await env.run({
			resource: 'image',
			operation: 'upscale',
			imageSource: 'url',
			imageUrl: IMAGE_URL,
			scaleFactor: '4x',
			...FAST,
		});
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(1);
		const [item] = result.items;
		expect(item!.json).toMatchObject({
			task_type: 'image-upscaler',
			status: 'succeeded',
			raw_status: 'COMPLETED',
			final: true,
			generated: [expect.stringContaining(env.sim.storageUrl)],
		});
		expect(item!.json.url).toBe((item!.json.generated as string[])[0]);
		expect(item!.pairedItem).toEqual({ item: 0 });
		expect(submitted(`${IMAGING}/image-upscaler`)).toEqual({ image: IMAGE_URL, scale_factor: '4x' });

		const file = item!.binary!.data!;
		expect(file).toMatchObject({ mimeType: 'image/png', fileExtension: 'png' });
		expect(file.fileName).toMatch(/\.png$/);
		expect((await readBinary(file)).subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);

		// The status path was polled, the storage host fetched once, and never with a credential.
		expect(env.sim.requestsTo('GET', `${IMAGING}/image-upscaler/${String(item!.json.task_id)}`).length).toBeGreaterThanOrEqual(1);
		expect(env.sim.requests.filter((r) => r.host === 'storage')).toHaveLength(1);
		expect(env.sim.counters.storageCredentialAttempts).toBe(0);
		expect(env.sim.requests.find((r) => r.host === 'storage')!.headers.authorization).toBeUndefined();
	});

	it('Upscale sends every additional field under its API name', async () => {
		const result = await env.run({
			resource: 'image',
			operation: 'upscale',
			imageSource: 'base64',
			imageBase64: `data:image/png;base64,${PNG_BASE64}`,
			scaleFactor: '2x',
			additionalFields: {
				creativity: -3,
				fractality: 4,
				hdr: 10,
				resemblance: -10,
				engine: 'partner_sharpy',
				optimizedFor: '3d_renders',
				prompt: 'a sharp product photo',
			},
			waitMode: 'none',
		});
		expect(result.status).toBe('success');
		expect(submitted(`${IMAGING}/image-upscaler`)).toEqual({
			image: PNG_BASE64,
			scale_factor: '2x',
			creativity: -3,
			fractality: 4,
			hdr: 10,
			resemblance: -10,
			engine: 'partner_sharpy',
			optimized_for: '3d_renders',
			prompt: 'a sharp product photo',
		});
	});

	it('Relight from an n8n binary field, with a lightmap URL and advanced settings', async () => {
		const result = await env.run(
			{
				resource: 'image',
				operation: 'relight',
				imageSource: 'binary',
				imageBinaryProperty: 'photo',
				additionalFields: {
					prompt: 'a sunset, (warm rim light:1.4)',
					style: 'contrasted_n_hdr',
					lightTransferStrength: 100,
					changeBackground: true,
					interpolateFromOriginal: false,
					preserveDetails: true,
					lightmap: IMAGE_URL,
				},
				advancedSettings: { brightness: 0.5, blacks: -2, engine: 'balanced', fixedGeneration: true, transferLightA: 'auto' },
				downloadFiles: false,
				...FAST,
			},
			[{ json: {}, binaryBase64: { photo: { data: PNG_BASE64, fileName: 'in.png', mimeType: 'image/png' } } }],
		);
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ task_type: 'image-relight', status: 'succeeded' });
		expect(result.items[0]!.binary).toBeUndefined();
		expect(submitted(`${IMAGING}/image-relight`)).toEqual({
			image: PNG_BASE64,
			prompt: 'a sunset, (warm rim light:1.4)',
			style: 'contrasted_n_hdr',
			light_transfer_strength: 100,
			change_background: true,
			interpolate_from_original: false,
			preserve_details: true,
			transfer_light_from_lightmap: IMAGE_URL,
			advanced_settings: { brightness: 0.5, blacks: -2, engine: 'balanced', fixed_generation: true, transfer_light_a: 'auto' },
		});
		expect(env.sim.requests.some((r) => r.host === 'storage')).toBe(false);
	});

	it('Relight takes the reference image from a binary field', async () => {
		const result = await env.run(
			{
				resource: 'image',
				operation: 'relight',
				imageUrl: IMAGE_URL,
				additionalFields: { referenceImageBinaryProperty: 'ref' },
				waitMode: 'none',
			},
			[{ json: {}, binaryBase64: { ref: { data: PNG_BASE64, mimeType: 'image/png' } } }],
		);
		expect(result.status).toBe('success');
		expect(submitted(`${IMAGING}/image-relight`)).toEqual({ image: IMAGE_URL, transfer_light_from_reference_image: PNG_BASE64 });
	});

	it('Style Transfer reads the unwrapped submit answer and polls its own status path', async () => {
		const result = await env.run({
			resource: 'image',
			operation: 'styleTransfer',
			imageSource: 'url',
			imageUrl: IMAGE_URL,
			referenceImageSource: 'base64',
			referenceImageBase64: PNG_BASE64,
			additionalFields: {
				engine: '3d_cartoon',
				flavor: 'gen_z',
				isPortrait: true,
				portraitBeautifier: 'beautify_face_max',
				portraitStyle: 'super_pop',
				structureStrength: 0,
				styleStrength: 100,
				fixedGeneration: true,
				prompt: 'comic look',
			},
			...FAST,
		});
		expect(result.status).toBe('success');
		const json = result.items[0]!.json;
		expect(json).toMatchObject({ task_type: 'image-style-transfer', status: 'succeeded', raw_status: 'COMPLETED' });
		expect(result.items[0]!.binary!.data!.mimeType).toBe('image/png');
		expect(env.sim.requestsTo('GET', `${IMAGING}/image-style-transfer/${String(json.task_id)}`).length).toBeGreaterThan(0);
		expect(submitted(`${IMAGING}/image-style-transfer`)).toMatchObject({
			image: IMAGE_URL,
			reference_image: PNG_BASE64,
			engine: '3d_cartoon',
			is_portrait: true,
			portrait_beautifier: 'beautify_face_max',
			portrait_style: 'super_pop',
			structure_strength: 0,
			style_strength: 100,
		});
	});

	it('Enhance Skin (creative) with sharpen and smart grain', async () => {
		const result = await env.run({
			resource: 'image',
			operation: 'enhanceSkin',
			imageUrl: 'https://images.example.com/face.jpg',
			additionalFields: { sharpen: 0, smartGrain: 100 },
			...FAST,
		});
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ task_type: 'skin-enhancer', status: 'succeeded' });
		expect(submitted(`${IMAGING}/skin-enhancer/creative`)).toEqual({
			image: 'https://images.example.com/face.jpg',
			sharpen: 0,
			smart_grain: 100,
		});
		expect(env.sim.requestsTo('GET', `${IMAGING}/skin-enhancer/`).length).toBeGreaterThan(0);
	});

	it('reads task_status instead of status in status answers', async () => {
		env.sim.proxy.statusField = 'task_status';
		const result = await env.run({ resource: 'image', operation: 'upscale', imageUrl: IMAGE_URL, downloadFiles: false, ...FAST });
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ status: 'succeeded', raw_status: 'COMPLETED' });
	});

	it('a result download cut half-way, or answered 503, is fetched again: the item gets the whole file', async () => {
		// The chaos fault at rate 1, switched off once it struck: the first transfer is cut, the next is whole.
		const chaos = new ChaosFaults(1, { storageReset: 1 });
		const roll = chaos.roll.bind(chaos);
		chaos.roll = (kind) => {
			const struck = roll(kind);
			if (struck) chaos.rates.storageReset = 0;
			return struck;
		};
		env.sim.faults.chaos = chaos;
		const cut = await env.run({ resource: 'image', operation: 'upscale', imageUrl: IMAGE_URL, ...FAST }, [{ json: {} }], {
			continueOnFail: true,
		});
		expect(chaos.injected.storageReset).toBe(1);
		expect(cut.items[0]!.json.error).toBeUndefined();
		const path = new URL(cut.items[0]!.json.url as string).pathname;
		const stored = env.sim.storage.get(decodeURIComponent(path.slice('/o/'.length)))!.body as Buffer;
		expect((await readBinary(cut.items[0]!.binary!.data!)).equals(stored)).toBe(true);
		expect(env.sim.requestsTo('GET', path)).toHaveLength(2);

		env.sim.faults.http5xx = { count: 1, pathPrefix: '/o/' };
		const refused = await env.run({ resource: 'image', operation: 'relight', imageUrl: IMAGE_URL, ...FAST }, [{ json: {} }], {
			continueOnFail: true,
		});
		expect(refused.items[0]!.json.error).toBeUndefined();
		expect(refused.items[0]!.binary!.data!.mimeType).toBe('image/png');
	});

	it('puts several items through, each paired with its input', async () => {
		const result = await env.run(
			{
				resource: 'image',
				operation: 'upscale',
				imageUrl: '={{ $json.url }}',
				scaleFactor: '={{ $json.scale }}',
				binaryPropertyName: 'upscaled',
				...FAST,
			},
			[
				{ json: { url: 'https://images.example.com/a.png', scale: '2x' } },
				{ json: { url: 'https://images.example.com/b.png', scale: '16x' } },
			],
		);
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(result.items.every((item) => item.binary?.upscaled?.mimeType === 'image/png')).toBe(true);
		expect(env.sim.requestsTo('POST', `${IMAGING}/image-upscaler`).map((r) => JSON.parse(r.body).scale_factor)).toEqual(['2x', '16x']);
	});
});

describe('Host Media: image Get Task Status', () => {
	const statusPaths: Array<
		[string, 'image-upscaler' | 'image-upscaler-precision-v2' | 'image-style-transfer' | 'image-relight' | 'skin-enhancer']
	> = [
		['Upscale', 'image-upscaler'],
		['Precision Upscale V2', 'image-upscaler-precision-v2'],
		['Style Transfer', 'image-style-transfer'],
		['Relight', 'image-relight'],
		['Enhance Skin', 'skin-enhancer'],
	];

	it.each(statusPaths)('%s: the current status, without waiting', async (_name, kind) => {
		// Slow steps, so the task is still where it was seeded when the node asks.
		env.sim.options.imageStepMs = 5000;
		const task = env.sim.proxy.seedImageTask(kind);
		const result = await env.run({ resource: 'image', operation: 'getTaskStatus', taskType: kind, taskId: task.taskId }).finally(() => {
			env.sim.options.imageStepMs = 15;
		});
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toEqual({
			task_id: task.taskId,
			task_type: kind,
			status: 'pending',
			raw_status: 'CREATED',
			final: false,
			generated: [],
		});
		expect(env.sim.requestsTo('GET', `${IMAGING}/${kind}/${task.taskId}`)).toHaveLength(1);
	});

	it.each(statusPaths)('%s: waits for completion and downloads the file', async (_name, kind) => {
		const task = env.sim.proxy.seedImageTask(kind);
		const result = await env.run({
			resource: 'image',
			operation: 'getTaskStatus',
			taskType: kind,
			taskId: task.taskId,
			waitForCompletion: true,
			...FAST,
		});
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({
			task_id: task.taskId,
			status: 'succeeded',
			raw_status: 'COMPLETED',
			generated: [expect.any(String)],
		});
		expect((await readBinary(result.items[0]!.binary!.data!)).equals(Buffer.alloc(0))).toBe(false);
	});

	it('a finished task is returned at once with its URL', async () => {
		const task = env.sim.proxy.seedImageTask('image-upscaler-precision-v2', { status: 'COMPLETED' });
		const result = await env.run({
			resource: 'image',
			operation: 'getTaskStatus',
			taskType: 'image-upscaler-precision-v2',
			taskId: task.taskId,
		});
		expect(result.items[0]!.json).toMatchObject({ status: 'succeeded', final: true, url: task.generated[0] });
		expect(result.items[0]!.binary).toBeUndefined();
	});

	it('a 404 names the task and the path, with the service words', async () => {
		const unknown = '00000000-0000-4000-8000-000000000000';
		const result = await env.run({ resource: 'image', operation: 'getTaskStatus', taskType: 'image-relight', taskId: unknown });
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(
			`The service has no status for relight task ${unknown} (HTTP 404 on GET /proxy/imaging/v1/ai/image-relight/${unknown}): No image-relight task with id ${unknown}.`,
		);
		expect((result.error('Node') as { description?: string }).description).toMatch(/Webhook wait mode/);
	});

	it('PNG bytes from the harness input are the bytes sent', async () => {
		const result = await env.run({ resource: 'image', operation: 'upscale', imageSource: 'binary', waitMode: 'none' }, [
			{ json: {}, binaryBase64: { data: { data: PNG_BASE64, mimeType: 'image/png' } } },
		]);
		expect(result.error('Node')?.message).toBeUndefined();
		expect(Buffer.from(submitted(`${IMAGING}/image-upscaler`).image as string, 'base64').equals(PNG)).toBe(true);
	});
});
