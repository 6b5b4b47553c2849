/**
 * What a failed item looks like under n8n's two "On Error: Continue" settings: on the regular
 * output it carries the error and its facts; with "Continue (using error output)" n8n routes it
 * to the error output (n8n only does so when the json holds nothing but error/message/details)
 * and adds the input item's fields. Either way the input's files are kept.
 */
import { cloudForSuite, FAST_WAIT, txt2img } from '../../support/cloud';
import { FAST, IMAGE_URL, PNG_BASE64, useMediaEnv } from '../../support/media';

const env = useMediaEnv();

const UPSCALE = {
	resource: 'image',
	operation: 'upscale',
	imageUrl: IMAGE_URL,
	downloadFiles: false,
	additionalFields: { creativity: '={{ $json.creativity }}' },
	...FAST,
};
const photo = { data: { data: PNG_BASE64, fileName: 'photo.png', mimeType: 'image/png' } };
const ITEMS = [
	{ json: { name: 'first', creativity: 2 }, binaryBase64: photo },
	{ json: { name: 'second', creativity: 11 }, binaryBase64: photo },
];
const CREATIVITY_ERROR = 'Creativity (creativity) must be a whole number from -10 to 10 (got "11")';

function runMedia(onError: 'continueRegularOutput' | 'continueErrorOutput') {
	return env.harness.runNode({ type: 'hostMedia', parameters: UPSCALE as never, credentials: { hostApi: env.credential }, onError }, ITEMS);
}

describe('Host Media (one item at a time)', () => {
	it('Continue (regular output): the failed item has the error, its pairing and the input file', async () => {
		const result = await runMedia('continueRegularOutput');
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(2);
		expect(result.items[0]!.json).toMatchObject({ status: 'succeeded', url: expect.any(String) });
		const failed = result.items[1]!;
		expect(failed.json).toEqual({ error: CREATIVITY_ERROR });
		expect(failed.pairedItem).toEqual({ item: 1 });
		expect(failed.binary?.data).toMatchObject({ fileName: 'photo.png', mimeType: 'image/png' });
		// Only the good item reached the service.
		expect(env.sim.requestsTo('POST', '/proxy/imaging/v1/ai/image-upscaler')).toHaveLength(1);
	});

	it('Continue (error output): the failed item goes to the error output with the input item’s fields', async () => {
		const result = await runMedia('continueErrorOutput');
		expect(result.status).toBe('success');
		const [ok] = result.output('Node', 0);
		expect(result.output('Node', 0)).toHaveLength(1);
		expect(ok!.json).toMatchObject({ status: 'succeeded' });
		const errors = result.output('Node', 1);
		expect(errors).toHaveLength(1);
		expect(errors[0]!.json).toEqual({ name: 'second', creativity: 11, error: CREATIVITY_ERROR });
		expect(errors[0]!.binary?.data).toMatchObject({ fileName: 'photo.png' });
	});
});

describe('Host Cloud Execute (items run together)', () => {
	const cloud = cloudForSuite();

	const execute = (onError: 'continueRegularOutput' | 'continueErrorOutput') => {
		cloud.sim.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'CUDA out of memory', nodeId: '3' });
		return cloud.harness.runNode(
			{
				type: 'hostCloud',
				parameters: {
					resource: 'workflow',
					operation: 'execute',
					workflow: JSON.stringify(txt2img()),
					waitOptions: FAST_WAIT,
					additionalFields: { maxConcurrentJobs: 1 },
				},
				credentials: { hostCloudApi: cloud.credential },
				onError,
			},
			[{ json: { name: 'first' } }, { json: { name: 'second' } }],
		);
	};

	it('Continue (regular output): the failed job’s item names its prompt_id and exception type', async () => {
		const result = await execute('continueRegularOutput');
		expect(result.status).toBe('success');
		const [failed, ok] = result.items;
		expect(failed!.json).toMatchObject({
			error: expect.stringMatching(/ran out of GPU memory/),
			prompt_id: expect.any(String),
			exception_type: 'OOMError',
			node_id: '3',
		});
		expect(cloud.sim.cloud.jobs.get(failed!.json.prompt_id as string)?.status).toBe('failed');
		expect(ok!.json).toMatchObject({ status: 'completed' });
	});

	it('Continue (error output): the failed item goes to the error output, its facts under details', async () => {
		const result = await execute('continueErrorOutput');
		expect(result.status).toBe('success');
		expect(result.output('Node', 0).map((item) => [item.json.status, item.pairedItem])).toEqual([['completed', { item: 1 }]]);
		const errors = result.output('Node', 1);
		expect(errors).toHaveLength(1);
		expect(errors[0]!.json).toEqual({
			name: 'first',
			error: expect.stringMatching(/ran out of GPU memory/),
			details: { prompt_id: expect.any(String), exception_type: 'OOMError', node_id: '3', errorDetails: expect.any(String) },
		});
		const details = errors[0]!.json.details as { prompt_id: string };
		expect(cloud.sim.cloud.jobs.get(details.prompt_id)?.status).toBe('failed');
	});
});
