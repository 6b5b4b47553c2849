/**
 * The simulator's self-hosted flavour: files (/view answering the bytes itself, uploads keeping
 * their names and folders) and the optional reverse proxy that wants a header or basic auth.
 */
import type { Simulator } from '../../../simulator/server';
import { type Graph, PNG_SIGNATURE, SelfHostedClient, txt2img } from '../support/self-hosted';
import { useSimulator } from '../support/simulator';

let sim: Simulator;
let proxyHeaders: Record<string, string> = {};
const client = new SelfHostedClient(
	() => sim,
	() => proxyHeaders,
);

useSimulator(
	{ flavour: 'self-hosted', nodeMs: 2, uploadLimitBytes: 4096 },
	(started) => (sim = started),
	() => {
		client.closeAll();
		proxyHeaders = {};
	},
);

const PNG = Buffer.concat([PNG_SIGNATURE, Buffer.from('cat pixels')]);
const OTHER_PNG = Buffer.concat([PNG_SIGNATURE, Buffer.from('dog pixels')]);

function form(bytes: Buffer, filename: string | undefined, fields: Record<string, string> = {}): FormData {
	const body = new FormData();
	if (filename === undefined)
		body.append('image', bytes.toString('latin1')); // a plain field, not a file
	else body.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), filename);
	for (const [name, value] of Object.entries(fields)) body.append(name, value);
	return body;
}

const loadAndSave = (image: string): Graph => ({
	'1': { class_type: 'LoadImage', inputs: { image } },
	'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'copy' } },
});

/** The standard graph run to the end; returns its image reference. */
async function outputImage(): Promise<Record<string, string>> {
	const id = await client.submit({ prompt: txt2img() });
	return (await client.finished(id)).outputs['9'].images[0];
}

describe('/view answers the file itself', () => {
	test('200 with the bytes, a content type from the name and the file name, with and without /api; HEAD too', async () => {
		const image = await outputImage();
		for (const path of ['/view', '/api/view']) {
			const res = await client.http.get(`${sim.baseUrl}${path}`, { params: image, responseType: 'arraybuffer' });
			expect(res.status).toBe(200);
			expect(res.headers['content-type']).toBe('image/png');
			expect(res.headers['content-disposition']).toBe(`filename="${image.filename}"`);
			expect(Buffer.from(res.data).subarray(0, 8)).toEqual(PNG_SIGNATURE);
		}
		const head = await client.request('HEAD', '/api/view', undefined, image);
		expect(head.status).toBe(200);
		expect(Number(head.headers['content-length'])).toBeGreaterThan(8);
		// The type may also be written into the name; without a type, output is meant.
		expect((await client.get('/api/view', { filename: `${image.filename} [output]`, type: 'temp' })).status).toBe(200);
		expect((await client.get('/api/view', { filename: image.filename })).status).toBe(200);
	});

	test('400 for a bad name or type, 403 for a subfolder leaving the folder, 404 for a missing file or no name', async () => {
		const { filename } = await outputImage();
		const view = (params: Record<string, string>) => client.get('/api/view', params);
		expect((await view({ filename: `../${filename}`, type: 'output' })).status).toBe(400);
		expect((await view({ filename: `/etc/${filename}`, type: 'output' })).status).toBe(400);
		expect((await view({ filename, type: 'models' })).status).toBe(400);
		expect((await view({ filename, subfolder: '..', type: 'output' })).status).toBe(403);
		expect((await view({ filename, subfolder: '/etc', type: 'output' })).status).toBe(403);
		expect((await view({ filename: 'nothing.png', type: 'output' })).status).toBe(404);
		expect((await view({ filename, type: 'input' })).status).toBe(404);
		expect((await view({ type: 'output' })).status).toBe(404);
		const bare = await view({ filename: `../${filename}` });
		expect(bare.data).toBe('');
		// A subfolder that goes out and back in stays inside; a directory in the name is dropped.
		expect((await view({ filename, subfolder: 'a/..', type: 'output' })).status).toBe(200);
		expect((await view({ filename: `somewhere/${filename}`, type: 'output' })).status).toBe(200);
	});

	test('large outputs are streamed whole', async () => {
		sim.cloud.setOutputSize(3 * 1024 * 1024);
		const image = await outputImage();
		const res = await client.http.get(`${sim.baseUrl}/view`, { params: image, responseType: 'arraybuffer' });
		expect(res.status).toBe(200);
		expect(res.data.byteLength).toBe(3 * 1024 * 1024);
		expect(Buffer.from(res.data).subarray(0, 8)).toEqual(PNG_SIGNATURE);
	});
});

describe('uploads keep their names and folders', () => {
	test('the name is kept; another file of that name gets " (1)"; the same bytes keep the name; overwrite replaces', async () => {
		const first = await client.post('/upload/image', form(PNG, 'cat.png'));
		expect(first.status).toBe(200);
		expect(first.data).toEqual({ name: 'cat.png', subfolder: '', type: 'input' });
		expect((await client.post('/api/upload/image', form(PNG, 'cat.png'))).data.name).toBe('cat.png');
		expect((await client.post('/api/upload/image', form(OTHER_PNG, 'cat.png'))).data.name).toBe('cat (1).png');
		expect((await client.post('/api/upload/image', form(Buffer.from('third'), 'cat.png'))).data.name).toBe('cat (2).png');

		const replaced = await client.post('/api/upload/image', form(OTHER_PNG, 'cat.png', { overwrite: 'true' }));
		expect(replaced.data.name).toBe('cat.png');
		const served = await client.http.get(`${sim.baseUrl}/api/view`, {
			params: { filename: 'cat.png', type: 'input', subfolder: '' },
			responseType: 'arraybuffer',
		});
		expect(Buffer.from(served.data)).toEqual(OTHER_PNG);
		expect(sim.cloud.uploads.map((u) => u.name)).toEqual(['cat.png', 'cat.png', 'cat (1).png', 'cat (2).png', 'cat.png']);
	});

	test('a subfolder and a type are honoured; LoadImage takes the path inside the input folder', async () => {
		const inSub = await client.post('/api/upload/image', form(PNG, 'pet.png', { subfolder: 'pets', type: 'input' }));
		expect(inSub.data).toEqual({ name: 'pet.png', subfolder: 'pets', type: 'input' });
		expect((await client.get('/api/view', { filename: 'pet.png', subfolder: 'pets', type: 'input' })).status).toBe(200);
		expect((await client.get('/api/view', { filename: 'pet.png', type: 'input' })).status).toBe(404);
		const temp = await client.post('/api/upload/image', form(PNG, 'scratch.png', { type: 'temp' }));
		expect(temp.data.type).toBe('temp');

		const ran = await client.submit({ prompt: loadAndSave('pets/pet.png') });
		expect((await client.finished(ran)).status.status_str).toBe('success');
		const unknown = await client.post('/api/prompt', { prompt: loadAndSave('pet.png') });
		expect(unknown.status).toBe(400);
		// As upstream's LoadImage says it: its own check of the file, not the list.
		expect(unknown.data.node_errors['1'].errors[0]).toMatchObject({ type: 'custom_validation_failed', details: 'image - Invalid image file: pet.png' });
	});

	test('400 without a file name or with a subfolder leaving the folder, 413 over the size limit, 500 for an unknown type', async () => {
		expect((await client.post('/api/upload/image', form(PNG, 'x.png', { subfolder: '../up' }))).status).toBe(400);
		expect((await client.post('/api/upload/image', form(PNG, '../x.png'))).status).toBe(400);
		expect((await client.post('/api/upload/image', form(PNG, undefined))).status).toBe(400);
		expect((await client.post('/api/upload/image', form(Buffer.alloc(5000), 'big.png'))).status).toBe(413);
		expect((await client.post('/api/upload/image', form(PNG, 'x.png', { type: 'models' }))).status).toBe(500);
		expect(sim.cloud.uploads).toEqual([]);
	});

	test('a mask upload writes the masked original; a missing original writes nothing but still answers 200', async () => {
		await client.post('/api/upload/image', form(PNG, 'face.png'));
		const ref = JSON.stringify({ filename: 'face.png', subfolder: '', type: 'input' });
		const masked = await client.post('/api/upload/mask', form(OTHER_PNG, 'clipspace-mask.png', { original_ref: ref }));
		expect(masked.data).toEqual({ name: 'clipspace-mask.png', subfolder: '', type: 'input' });
		const view = await client.http.get(`${sim.baseUrl}/view`, {
			params: { filename: 'clipspace-mask.png', type: 'input' },
			responseType: 'arraybuffer',
		});
		expect(view.status).toBe(200);
		expect(Buffer.from(view.data)).toEqual(PNG);

		const orphan = JSON.stringify({ filename: 'gone.png' }); // type defaults to output there
		expect((await client.post('/api/upload/mask', form(OTHER_PNG, 'orphan-mask.png', { original_ref: orphan }))).status).toBe(200);
		expect((await client.get('/api/view', { filename: 'orphan-mask.png', type: 'input' })).status).toBe(404);
		expect((await client.post('/api/upload/mask', form(OTHER_PNG, 'no-ref.png'))).status).toBe(500);
	});
});

describe('a reverse proxy in front of the server', () => {
	test('one that wants a header answers 401 without it, on every route and on the WebSocket', async () => {
		sim.options.proxyAuth = { header: 'X-Proxy-Token', value: 'proxy-secret' };
		for (const path of ['/api/object_info', '/object_info', '/api/queue', '/api/jobs/x', '/view']) {
			expect((await client.get(path)).status).toBe(401);
		}
		expect((await client.post('/api/prompt', { prompt: txt2img() })).status).toBe(401);
		await expect(client.open('c')).rejects.toThrow('401');
		proxyHeaders = { 'X-Proxy-Token': 'wrong' };
		expect((await client.get('/api/queue')).status).toBe(401);
		expect(sim.cloud.jobs.size).toBe(0);

		proxyHeaders = { 'X-Proxy-Token': 'proxy-secret' };
		const socket = await client.open('c');
		const id = await client.submit({ prompt: txt2img(), client_id: 'c' });
		expect((await client.finished(id)).status.status_str).toBe('success');
		expect(socket.types(id)).toContain('execution_success');
		// The log shows the header was sent, never its value.
		const logged = sim.requestsTo('POST', '/api/prompt').at(-1);
		expect(logged?.headers['x-proxy-token']).toBe('***(12)');
		expect(JSON.stringify(sim.requests)).not.toContain('proxy-secret');
	});

	test('one that wants basic auth answers 401 with a challenge without it', async () => {
		sim.options.proxyAuth = { username: 'ada', password: 'lovelace' };
		const refused = await client.get('/api/object_info');
		expect(refused.status).toBe(401);
		expect(refused.headers['www-authenticate']).toMatch(/^Basic realm=/);
		proxyHeaders = { Authorization: `Basic ${Buffer.from('ada:wrong').toString('base64')}` };
		expect((await client.get('/api/object_info')).status).toBe(401);

		proxyHeaders = { Authorization: `Basic ${Buffer.from('ada:lovelace').toString('base64')}` };
		expect((await client.get('/api/object_info')).status).toBe(200);
		await client.open('basic');
	});

	test('without proxy auth configured, no header is needed (the default)', async () => {
		expect(sim.options.proxyAuth).toBeUndefined();
		expect((await client.get('/api/object_info')).status).toBe(200);
	});
});
