/**
 * Set Inputs → Value From Server List: the editor offers the values the server's own node
 * definitions list for an input (checkpoints, samplers, schedulers...), through n8n's load-options
 * machinery against the simulator, on the cloud and on a self-hosted server; a picked value is
 * what the server receives, a typed Value or an expression still works, and the two set to
 * different values is refused before anything is sent.
 */
import { buildCatalogue } from '../../../simulator/cloud/catalogue';
import type { WorkflowNodeSpec } from '../../support/engine';
import { cloudForSuite, FAST_WAIT, txt2img } from '../../support/cloud';

describe.each([
	{ server: 'the cloud', flavour: 'cloud' as const },
	{ server: 'a self-hosted server', flavour: 'self-hosted' as const },
])('on $server', ({ flavour }) => {
	const cloud = cloudForSuite({ flavour });
	const catalogue = buildCatalogue();
	const listed = (classType: string, input: string) => (catalogue[classType]!.input.required[input]![0] as string[]).map(String);

	function node(entry: Record<string, unknown>, workflow = JSON.stringify(txt2img())): WorkflowNodeSpec {
		return {
			name: 'Host Cloud',
			type: 'hostCloud',
			parameters: {
				resource: 'workflow',
				operation: 'execute',
				workflow,
				inputOverrides: { values: [entry] },
				waitOptions: FAST_WAIT,
			} as unknown as WorkflowNodeSpec['parameters'],
			credentials: { hostCloudApi: cloud.credential },
		};
	}

	const choices = (entry: Record<string, unknown>) =>
		cloud.harness.loadOptions(node(entry), 'getInputValues', 'parameters.inputOverrides.values[0].listedValue');

	test('the list holds the server’s values for the input, the one in the workflow marked', async () => {
		const samplers = await choices({ nodeId: '3', inputName: 'sampler_name' });
		expect(samplers.map((option) => option.value)).toEqual(listed('KSampler', 'sampler_name'));
		expect(samplers.find((option) => option.value === 'euler')).toEqual({
			name: 'euler',
			value: 'euler',
			description: 'Now in the workflow',
		});
		const checkpoints = await choices({ nodeId: '4', inputName: 'ckpt_name' });
		expect(checkpoints.map((option) => option.value)).toEqual(listed('CheckpointLoaderSimple', 'ckpt_name'));
		expect(cloud.sim.requestsTo('GET', '/api/object_info').length).toBeGreaterThan(0);
	});

	test('an input without a list, or no input picked yet, says what to do instead', async () => {
		await expect(choices({ nodeId: '3', inputName: 'seed' })).rejects.toThrow(
			'The server lists no values for input "seed" of node 3 (KSampler): type its value in Value instead',
		);
		await expect(choices({ nodeId: '3', inputName: '' })).rejects.toThrow('Pick the node and the input first');
	});

	test('a loader input the definitions list nothing for: a self-hosted server’s model folder of that input, the cloud nothing', async () => {
		// A custom loader the server does not describe, whose input is named as ComfyUI's LoRA loader names it.
		const graph = { ...txt2img(), '20': { class_type: 'MyLoraLoader', inputs: { lora_name: 'add_detail.safetensors', model: ['4', 0] } } };
		const node20 = (entry: Record<string, unknown>) =>
			cloud.harness.loadOptions(node(entry, JSON.stringify(graph)), 'getInputValues', 'parameters.inputOverrides.values[0].listedValue');
		const listedLoras = await node20({ nodeId: '20', inputName: 'lora_name' }).then(
			(options) => options,
			(error: Error) => error.message,
		);
		if (flavour === 'cloud') {
			expect(listedLoras).toBe(
				'The server lists no values for input "lora_name" of node 20 (MyLoraLoader): type its value in Value instead',
			);
			expect(cloud.sim.requestsTo('GET', '/api/models')).toEqual([]);
			return;
		}
		expect(listedLoras).toEqual([
			{ name: 'add_detail.safetensors', value: 'add_detail.safetensors', description: "Now in the workflow; In the server's loras folder" },
			{ name: 'lcm_lora_sd15.safetensors', value: 'lcm_lora_sd15.safetensors', description: "In the server's loras folder" },
		]);
		// An input no loader names: no folder is guessed.
		await expect(node20({ nodeId: '20', inputName: 'model' })).rejects.toThrow('The server lists no values for input "model"');
	});

	test('a picked value is what the server runs; a typed Value still works', async () => {
		const picked = await cloud.harness.runNode(node({ nodeId: '3', inputName: 'scheduler', listedValue: 'karras' }));
		expect(picked.status).toBe('success');
		const typed = await cloud.harness.runNode(node({ nodeId: '3', inputName: 'sampler_name', value: 'heun' }));
		expect(typed.status).toBe('success');
		const sent = cloud.sim.requestsTo('POST', '/api/prompt').map((request) => JSON.parse(request.body).prompt['3'].inputs);
		expect(sent.map((inputs) => [inputs.scheduler, inputs.sampler_name])).toEqual([
			['karras', 'euler'],
			['normal', 'heun'],
		]);
	});

	test('Value and Value From Server List set to different values: refused by name, nothing sent', async () => {
		const result = await cloud.harness.runNode(node({ nodeId: '3', inputName: 'sampler_name', value: 'heun', listedValue: 'ddim' }));
		expect(result.status).toBe('error');
		expect(result.error('Host Cloud')!.message).toBe(
			'Set Inputs (entry 1): both Value ("heun") and Value From Server List ("ddim") are set',
		);
		expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(0);
	});
});
