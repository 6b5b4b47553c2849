/**
 * The Host Media examples in examples/ as n8n would run them: the Host Media node of each file,
 * with its parameters and version exactly as written (only polling made fast), ends the workflow
 * with its file in the binary field `data` (with a file name and extension), which users download
 * from the output panel. No example depends on a folder that only n8n's Docker image has.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { readBinary } from '../../support/engine';
import { useMediaEnv } from '../../support/media';

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

const EXAMPLES = join(__dirname, '..', '..', '..', 'examples');

function example(file: string): { media: Example['nodes'][number] } {
	const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as Example;
	const media = workflow.nodes.find((node) => node.type === 'n8n-nodes-host.hostMedia')!;
	expect(media.credentials).toHaveProperty('hostApi');
	// Examples show the current layout (version 2, "Wait Options").
	expect(media.typeVersion).toBe(2);
	expect(media.parameters).not.toHaveProperty('pollingOptions');
	// The file stays in n8n's binary data: the media node ends the workflow.
	expect(workflow.connections[media.name]).toBeUndefined();
	return { media };
}

describe('examples', () => {
	it('no example writes to a folder: files stay in binary data, which every install has', () => {
		for (const file of readdirSync(EXAMPLES).filter((name) => name.endsWith('.json'))) {
			const text = readFileSync(join(EXAMPLES, file), 'utf8');
			const workflow = JSON.parse(text) as Example;
			expect([file, workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.readWriteFile').map((node) => node.name)]).toEqual([
				file,
				[],
			]);
			expect([file, /\/home\/node|\.n8n-files/.test(text.replace(/"content": ".*"/g, ''))]).toEqual([file, false]);
		}
	});

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
		const { media } = example('text-to-music.json');
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
