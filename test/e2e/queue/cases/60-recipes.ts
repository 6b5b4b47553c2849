/**
 * Two recipes of examples/recipes/ in queue mode, where binary data lives in the database and the
 * process that reads a file is not the one that wrote it: the image API (a worker downloads the
 * job's file, Respond to Webhook answers with it through the webhook processor) and the upscale loop
 * (Aggregate and Compression read the files the loop's Host Media runs stored, one zip entry per input).
 */

import { describeFailure, outputItems } from '../../support/n8n-client';
import { runsOf } from '../../support/queue-logs';
import { askImageApi, loadRecipe, sha, webhookServed, withParameter, zipEntries } from '../../support/recipes';
import { queue } from '../context';

describe('queue mode: recipes with binary data in the database', () => {
	it('webhook-image-api.json: the webhook processor answers with the exact file a worker downloaded', async () => {
		const { client, importWorkflow, simulator, webhookProcessors, workers } = queue();
		const workflow = await importWorkflow(loadRecipe('webhook-image-api.json'), 'Recipe: image API (queue mode)');
		await client.activateWorkflow(workflow.id);
		try {
			const url = `${webhookProcessors[0]!.url}/webhook/image-api`;
			await webhookServed(url, 'POST');
			const known = await client.executionIds(workflow.id);
			const { body, served } = await askImageApi(simulator, url, `queue recipe image api ${Date.now()}`, 7);
			expect(sha(body)).toBe(sha(served));

			const execution = await client.waitForNewExecution(workflow.id, known, { timeoutMs: 30000 });
			expect(describeFailure(execution)).toBe('succeeded');
			expect(runsOf(execution.id, workers)).toEqual([expect.objectContaining({ finished: true, errored: false })]);
			expect(outputItems(execution, 'Generate image')[0]?.binary?.data?.id).toMatch(/^database:/);
		} finally {
			await client.deactivateWorkflow(workflow.id);
		}
	}, 90000);

	it('loop-upscale-to-zip.json: Compression on a worker zips one file per input image from the database', async () => {
		const { client, importWorkflow, simulator } = queue();
		// The service takes image addresses as they are (nothing is fetched from them here).
		const inputs = ['harbour', 'forest', 'city'].map((name) => `https://images.example.com/queue/${name}-${Date.now()}.png`);
		const recipe = withParameter(
			loadRecipe('loop-upscale-to-zip.json'),
			'Images to upscale',
			'jsonOutput',
			JSON.stringify({ images: inputs }),
		);
		const workflow = await importWorkflow(
			withParameter(recipe, 'Upscale 2x', 'waitOptions', { pollIntervalSeconds: 0.2, maxWaitMinutes: 2 }),
			'Recipe: upscale a list into one zip (queue mode)',
		);
		const execution = await client.runWorkflow(workflow.id, { timeoutMs: 90000 });
		expect(describeFailure(execution)).toBe('succeeded');
		const [zipItem] = outputItems(execution, 'Zip them');
		expect(zipItem?.binary?.data?.id).toMatch(/^database:/);
		const entries = zipEntries(await client.binaryContent(zipItem!.binary!.data!));
		const sources = entries.map((entry) => {
			const taskId = /^[a-z-]+?-([0-9a-f]{8}-[0-9a-f-]+)\.png$/.exec(entry.name)?.[1];
			return String(taskId && simulator.proxy.imageTasks.get(taskId)?.request.image);
		});
		expect(sources.sort()).toEqual([...inputs].sort());
	}, 120000);
});
