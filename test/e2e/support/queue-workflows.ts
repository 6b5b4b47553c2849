/**
 * The workflows the queue-mode suite and its benchmark run: Host Cloud's standard text-to-image
 * graph (test/fixtures/txt2img-api.json) from a manual trigger or a production webhook, its output
 * files named after a tag so that every execution's files are told apart, and Host Media's video
 * extension waiting for the service's notification.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { CREDENTIAL_NAMES } from './instance-setup';
import type { WorkflowJson, WorkflowNode } from './n8n-client';
import { REPO_ROOT } from './n8n-server';
import { hostNodeType, linearWorkflow, manualTriggerNode } from './workflows';

export const CLOUD_GRAPH = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'txt2img-api.json'), 'utf8');
const DEFAULT_PREFIX = '"filename_prefix": "lighthouse"';

export const CLOUD_NODE = 'Run graph';
export const MEDIA_NODE = 'Extend video';
export const WEBHOOK_NODE = 'Webhook';

type NodeSpec = Omit<WorkflowNode, 'position' | 'id'>;

/**
 * Host Cloud · Workflow · Execute of the standard graph. With `tagExpression` (an expression such
 * as `$json.body.tag`) the SaveImage node's files are named after it: `<tag>_00001_.png`.
 */
export function cloudRunNode(options: { downloadFiles: boolean; tagExpression?: string }): NodeSpec {
	if (!CLOUD_GRAPH.includes(DEFAULT_PREFIX)) throw new Error(`test/fixtures/txt2img-api.json no longer has ${DEFAULT_PREFIX}`);
	const workflow = options.tagExpression
		? `=${CLOUD_GRAPH.replace(DEFAULT_PREFIX, `"filename_prefix": "{{ ${options.tagExpression} }}"`)}`
		: CLOUD_GRAPH;
	return {
		name: CLOUD_NODE,
		type: hostNodeType('hostCloud'),
		typeVersion: 2,
		parameters: { resource: 'workflow', operation: 'execute', workflow, downloadFiles: options.downloadFiles },
		credentials: { hostCloudApi: { name: CREDENTIAL_NAMES.hostCloudApi } },
	};
}

/** Manual trigger → Host Cloud Execute. */
export function manualCloudWorkflow(name: string, options: { downloadFiles: boolean }): WorkflowJson {
	return linearWorkflow(name, [manualTriggerNode(), cloudRunNode(options)]);
}

/**
 * Production webhook (POST `/webhook/<path>`, answered at once) → Host Cloud Execute, the files
 * named after the request body's `tag`. Returns the workflow and its path.
 */
export function webhookCloudWorkflow(name: string, options: { downloadFiles: boolean }): { workflow: WorkflowJson; path: string } {
	const path = randomUUID();
	const workflow = linearWorkflow(name, [
		{
			name: WEBHOOK_NODE,
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			parameters: { httpMethod: 'POST', path, responseMode: 'onReceived' },
		},
		cloudRunNode({ ...options, tagExpression: '$json.body.tag' }),
	]);
	return { workflow, path };
}

/** Manual trigger → Host Media · Video · Extend in *Wait for Notification* mode. */
export function mediaWaitWorkflow(name: string, options: { downloadFiles: boolean }): WorkflowJson {
	return linearWorkflow(name, [
		manualTriggerNode(),
		{
			name: MEDIA_NODE,
			type: hostNodeType('hostMedia'),
			typeVersion: 2,
			parameters: {
				resource: 'video',
				operation: 'extend',
				model: 'videoq2-turbo',
				waitMode: 'webhook',
				downloadFiles: options.downloadFiles,
			},
			credentials: { hostApi: { name: CREDENTIAL_NAMES.hostApi } },
		},
	]);
}

/** POSTs JSON to a URL (a production webhook, a trigger) and answers the status and the body as text. */
export async function postJson(url: string, body: unknown): Promise<{ status: number; text: string }> {
	const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	return { status: response.status, text: await response.text() };
}
