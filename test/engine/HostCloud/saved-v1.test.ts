/**
 * Workflows saved with version 1 of Host Cloud keep working: their wait settings stay under
 * "Additional Fields" with Max Wait in seconds, while version 2 (what the editor adds now) reads
 * them from "Wait Options" in minutes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';
import type { INodeParameters } from 'n8n-workflow';

import { cloudForSuite, OUTLASTING_NODE_MS, txt2img } from '../../support/cloud';

const cloud = cloudForSuite();

function executeAt(typeVersion: number, parameters: Record<string, unknown>) {
	return cloud.harness.runNode(
		{
			type: 'hostCloud',
			typeVersion,
			parameters: { resource: 'workflow', operation: 'execute', workflow: JSON.stringify(txt2img()), ...parameters },
			credentials: { hostCloudApi: cloud.credential },
			continueOnFail: true,
		},
		[{ json: {} }],
	);
}

test('version 1 reads Max Wait in seconds from Additional Fields', async () => {
	cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
	const result = await executeAt(1, { additionalFields: { maxWaitSeconds: 0.3, pollIntervalSeconds: 0.05 } });
	const json = result.items[0]!.json as Record<string, any>;
	expect(json.error).toBe(`Job ${json.prompt_id} did not finish within 0.3 seconds (Max Wait), so it was cancelled on the cloud`);
	expect(cloud.sim.cloud.jobs.get(json.prompt_id)?.status).toBe('cancelled');
});

test('version 1 refuses a negative Max Wait (Seconds) by name, before sending anything', async () => {
	const result = await executeAt(1, { additionalFields: { maxWaitSeconds: -1 } });
	// A wait setting applies to the whole run, so it fails the node rather than one item.
	expect(result.status).toBe('error');
	expect(result.error('Node')!.message).toMatch(/^Max Wait \(Seconds\) must be a number from 0 to 2592000/);
	expect(cloud.sim.requests).toHaveLength(0);
});

test('version 2 reads Max Wait (Minutes) from Wait Options', async () => {
	cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
	const result = await executeAt(2, { waitOptions: { maxWaitMinutes: 0.005, pollIntervalSeconds: 0.05, onTimeout: 'keep' } });
	const json = result.items[0]!.json as Record<string, any>;
	expect(json.error).toMatch(new RegExp(`^Job ${json.prompt_id} did not finish within 0.3 seconds \\(Max Wait\\); it is still running`));
});

test('the text-to-image example as saved with version 1 still runs unchanged', async () => {
	const saved = JSON.parse(readFileSync(join(__dirname, '../../fixtures/saved-v1/text-to-image.json'), 'utf8')) as {
		nodes: Array<{ type: string; typeVersion: number; parameters: INodeParameters }>;
	};
	const node = saved.nodes.find((entry) => entry.type === 'n8n-nodes-host.hostCloud')!;
	expect(node.typeVersion).toBe(1);
	const result = await cloud.harness.runNode({
		type: 'hostCloud',
		typeVersion: node.typeVersion,
		parameters: node.parameters,
		credentials: { hostCloudApi: cloud.credential },
	});
	expect(result.status).toBe('success');
	const json = result.items[0]!.json as Record<string, any>;
	expect(json.status).toBe('completed');
	expect((await axios.get(json.images[0].url)).status).toBe(200);
});
