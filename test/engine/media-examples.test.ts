/**
 * The Host Media examples in examples/ as n8n would run them: the Host Media node of each file,
 * with its parameters exactly as written (only polling made fast), produces what the next node
 * (Read/Write Files) reads: a binary field `data` with a file name and extension.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { readBinary } from '../harness/engine';
import { useMediaEnv } from '../helpers/media';

const env = useMediaEnv();

interface Example {
	nodes: Array<{ name: string; type: string; parameters: Record<string, unknown>; credentials?: Record<string, unknown> }>;
	connections: Record<string, { main: Array<Array<{ node: string }>> }>;
}

function example(file: string): { media: Example['nodes'][number]; writer: Example['nodes'][number] } {
	const workflow = JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', file), 'utf8')) as Example;
	const media = workflow.nodes.find((node) => node.type === 'n8n-nodes-host.hostMedia')!;
	expect(media.credentials).toHaveProperty('hostApi');
	const next = workflow.connections[media.name]!.main[0]![0]!.node;
	const writer = workflow.nodes.find((node) => node.name === next)!;
	expect(writer).toMatchObject({ type: 'n8n-nodes-base.readWriteFile', parameters: { operation: 'write', dataPropertyName: 'data' } });
	return { media, writer };
}

describe('examples', () => {
	it('upscale-image.json: the upscaled file in binary field "data"', async () => {
		const { media } = example('upscale-image.json');
		const result = await env.run({ ...media.parameters, pollingOptions: { pollIntervalSeconds: 0.01, maxWaitMinutes: 1 } });
		expect(result.status).toBe('success');
		const item = result.items[0]!;
		expect(item.json).toMatchObject({ status: 'succeeded', url: expect.any(String) });
		expect(item.binary!.data).toMatchObject({ mimeType: 'image/png', fileExtension: 'png' });
		expect((await readBinary(item.binary!.data!)).length).toBeGreaterThan(0);
	});

	it('text-to-music.json: one audio file per take in binary field "data"', async () => {
		const { media, writer } = example('text-to-music.json');
		expect(writer.parameters.fileName).toContain('$binary.data.fileName');
		const result = await env.run(media.parameters as IDataObject);
		expect(result.status).toBe('success');
		expect(result.items.length).toBeGreaterThan(0);
		for (const item of result.items) {
			expect(item.binary!.data).toMatchObject({ mimeType: 'audio/wav', fileName: expect.stringMatching(/\.wav$/) });
		}
	});
});
