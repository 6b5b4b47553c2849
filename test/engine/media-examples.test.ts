/**
 * The Host Media examples in examples/ as n8n would run them: the Host Media node of each file,
 * with its parameters and version exactly as written (only polling made fast), produces what the next node
 * (Read/Write Files) reads: a binary field `data` with a file name and extension.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { readBinary } from '../harness/engine';
import { useMediaEnv } from '../helpers/media';

const env = useMediaEnv();

interface Example {
	nodes: Array<{
		name: string;
		type: string;
		typeVersion: number;
		parameters: Record<string, unknown>;
		credentials?: Record<string, unknown>;
	}>;
	connections: Record<string, { main: Array<Array<{ node: string }>> }>;
}

function example(file: string): { media: Example['nodes'][number]; writer: Example['nodes'][number] } {
	const workflow = JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', file), 'utf8')) as Example;
	const media = workflow.nodes.find((node) => node.type === 'n8n-nodes-host.hostMedia')!;
	expect(media.credentials).toHaveProperty('hostApi');
	// Examples show the current layout (version 2, "Wait Options").
	expect(media.typeVersion).toBe(2);
	expect(media.parameters).not.toHaveProperty('pollingOptions');
	const next = workflow.connections[media.name]!.main[0]![0]!.node;
	const writer = workflow.nodes.find((node) => node.name === next)!;
	expect(writer).toMatchObject({ type: 'n8n-nodes-base.readWriteFile', parameters: { operation: 'write', dataPropertyName: 'data' } });
	return { media, writer };
}

describe('examples', () => {
	it('upscale-image.json: the upscaled file in binary field "data"', async () => {
		const { media } = example('upscale-image.json');
		expect(media.parameters.waitOptions).toEqual({ pollIntervalSeconds: 5, maxWaitMinutes: 30 });
		const result = await env.run({ ...media.parameters, waitOptions: { pollIntervalSeconds: 0.01, maxWaitMinutes: 1 } }, [{ json: {} }], {
			typeVersion: media.typeVersion,
		});
		expect(result.status).toBe('success');
		const item = result.items[0]!;
		expect(item.json).toMatchObject({ status: 'succeeded', url: expect.any(String) });
		expect(item.binary!.data).toMatchObject({ mimeType: 'image/png', fileExtension: 'png' });
		expect((await readBinary(item.binary!.data!)).length).toBeGreaterThan(0);
	});

	it('text-to-music.json: one audio file per take in binary field "data"', async () => {
		const { media, writer } = example('text-to-music.json');
		expect(writer.parameters.fileName).toContain('$binary.data.fileName');
		const result = await env.run(media.parameters as IDataObject, [{ json: {} }], { typeVersion: media.typeVersion });
		expect(result.status).toBe('success');
		// The simulator streams two takes: one item and one file each.
		expect(result.items).toHaveLength(2);
		for (const item of result.items) {
			expect(Object.keys(item.binary ?? {})).toEqual(['data']);
			expect(item.binary!.data).toMatchObject({ mimeType: 'audio/wav', fileName: expect.stringMatching(/\.wav$/) });
		}
	});
});
