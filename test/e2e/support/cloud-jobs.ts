/**
 * Jobs started outside n8n (a script posting a graph to the cloud), and waiting until a published
 * Host Cloud Trigger listens: n8n 2.41 answers the publish before it runs the trigger, and a job
 * that ends before the trigger listens is not seen (docs/host-cloud-trigger.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Simulator } from '../../../simulator/server';
import { REPO_ROOT } from './n8n-server';
import { waitFor } from './wait';

const GRAPH = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'txt2img-api.json'), 'utf8')) as Record<string, unknown>;

/** Posts the text-to-image graph straight to the cloud, as a script does; each node takes `nodeMs` when given. */
export async function postJobFromOutside(simulator: Simulator, nodeMs?: number): Promise<string> {
	const previous = simulator.options.nodeMs;
	if (nodeMs !== undefined) simulator.options.nodeMs = nodeMs;
	try {
		const response = await fetch(`${simulator.baseUrl}/api/prompt`, {
			method: 'POST',
			headers: { 'X-API-Key': simulator.apiKey, 'content-type': 'application/json' },
			body: JSON.stringify({ prompt: GRAPH }),
		});
		return ((await response.json()) as { prompt_id: string }).prompt_id;
	} finally {
		simulator.options.nodeMs = previous;
	}
}

/** Call before publishing (or a test run); the answer waits until a trigger opened its socket and read the queue since. */
export function whenCloudTriggerListens(simulator: Simulator): () => Promise<void> {
	const handshakes = simulator.cloud.wsHandshakes.length;
	const reads = simulator.requestsTo('GET', '/api/queue').length;
	return async () => {
		await waitFor(
			'the Host Cloud Trigger to listen',
			() => simulator.cloud.wsHandshakes.length > handshakes && simulator.requestsTo('GET', '/api/queue').length > reads,
			{ timeoutMs: 30000 },
		);
	};
}
