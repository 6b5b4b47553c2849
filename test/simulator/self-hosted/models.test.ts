/**
 * The self-hosted flavour's model folders and memory control, as a client sees them (simulator/self-hosted/models.ts):
 * GET /models names the folders, GET /models/{folder} lists a folder's files (a folder the server
 * does not register is a bare 404), and POST /free takes its flags and answers 200 with no body, or
 * crashes (500) on a body that is not a JSON object, as upstream does.
 */
import type { Simulator } from '../../../simulator/server';
import type { SelfHostedArea } from '../../../simulator/self-hosted/area';
import { SelfHostedClient } from '../support/self-hosted';
import { useSimulator } from '../support/simulator';

let sim: Simulator;
const client = new SelfHostedClient(() => sim);
const area = () => sim.cloud as unknown as SelfHostedArea;

useSimulator({ flavour: 'self-hosted' }, (started) => (sim = started));

describe('model folders', () => {
	test.each(['', '/api'])('prefix "%s": /models names the folders, /models/{folder} their files, sorted', async (prefix) => {
		const folders = await client.get(`${prefix}/models`);
		expect(folders.status).toBe(200);
		expect(folders.data).toEqual(expect.arrayContaining(['checkpoints', 'loras', 'vae', 'upscale_models', 'embeddings']));
		const loras = await client.get(`${prefix}/models/loras`);
		expect(loras.data).toEqual(['add_detail.safetensors', 'lcm_lora_sd15.safetensors']);
		const checkpoints = (await client.get(`${prefix}/models/checkpoints`)).data as string[];
		expect(checkpoints.length).toBeGreaterThan(0);
		expect(checkpoints).toEqual([...checkpoints].sort());
		expect((await client.get(`${prefix}/models/hypernetworks`)).data).toEqual([]);
	});

	test('a folder the server does not register is a bare 404', async () => {
		const answer = await client.get('/models/not_a_folder');
		expect(answer.status).toBe(404);
		expect(answer.data).toBe('');
	});
});

describe('POST /free', () => {
	test('takes its flags and answers 200 with no body; missing flags are false', async () => {
		const answer = await client.post('/api/free', { unload_models: true });
		expect(answer.status).toBe(200);
		expect(answer.data).toBe('');
		await client.post('/free', { free_memory: true });
		expect(area().freed).toEqual([
			{ unload_models: true, free_memory: false },
			{ unload_models: false, free_memory: true },
		]);
	});

	test.each([['[]'], ['"flags"'], ['not json']])(
		'a body that is not a JSON object (%s) crashes the handler: 500, nothing recorded',
		async (body) => {
			const answer = await client.http.post(`${sim.baseUrl}/free`, body, {
				headers: { 'content-type': 'application/json' },
				transformRequest: (d) => d,
			});
			expect(answer.status).toBe(500);
			expect(area().freed).toEqual([]);
		},
	);
});
