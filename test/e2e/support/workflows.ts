/**
 * Workflow files for the real n8n: the examples in examples/ and small workflows built in code.
 * Credential references in a file name a credential type; on import they are pointed at the
 * credentials created in this n8n (n8n matches them by id).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

import type { CredentialRef, WorkflowJson, WorkflowNode } from './n8n-client';
import { PACKAGE_NAME, REPO_ROOT } from './n8n-server';

export const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
export const TEXT_TO_IMAGE_EXAMPLE = 'text-to-image.json';
export const MANUAL_TRIGGER_TYPE = 'n8n-nodes-base.manualTrigger';

/** `hostCloud` → `n8n-nodes-host.hostCloud`, the type name n8n gives an installed community node. */
export function hostNodeType(name: string): string {
	return `${PACKAGE_NAME}.${name}`;
}

export interface ExampleFile {
	/** File name in examples/, e.g. text-to-image.json. */
	file: string;
	workflow: WorkflowJson;
}

/** Every examples/*.json, sorted by name. */
export function loadExamples(dir = EXAMPLES_DIR): ExampleFile[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => ({ file, workflow: readWorkflowFile(join(dir, file)) }));
}

/** One example of examples/ by file name, read from the file (suites that import none up front use it). */
export function loadExample(file: string): ExampleFile {
	const found = loadExamples().find((example) => example.file === file);
	if (!found) throw new Error(`examples/${file} is missing`);
	return found;
}

export function readWorkflowFile(path: string): WorkflowJson {
	let workflow: WorkflowJson;
	try {
		workflow = JSON.parse(readFileSync(path, 'utf8')) as WorkflowJson;
	} catch (error) {
		throw new Error(`${basename(path)} is not valid JSON: ${(error as Error).message}`);
	}
	if (!Array.isArray(workflow.nodes) || typeof workflow.connections !== 'object') {
		throw new Error(`${basename(path)} is not an n8n workflow export (it needs "nodes" and "connections")`);
	}
	return workflow;
}

/** Node types of the workflow that come from this package. */
export function hostNodeTypesIn(workflow: WorkflowJson): string[] {
	return [...new Set(workflow.nodes.map((node) => node.type).filter((type) => type.startsWith(`${PACKAGE_NAME}.`)))];
}

/**
 * A copy of the workflow ready for this n8n: each node's credential references point at the
 * credential of that type created here, nodes that receive webhooks get a webhook id (as the
 * editor gives them) when the file has none; a credential of a type in `leaveUnbound` that none is given
 * for is left as the file names it (no id). Nothing else changes: examples run as users import them.
 */
export function prepareWorkflow(
	workflow: WorkflowJson,
	credentials: Record<string, CredentialRef>,
	options: { nodeTypesWithWebhooks?: Set<string>; name?: string; leaveUnbound?: readonly string[] } = {},
): WorkflowJson {
	const copy = JSON.parse(JSON.stringify(workflow)) as WorkflowJson;
	if (options.name) copy.name = options.name;
	for (const node of copy.nodes) {
		for (const type of Object.keys(node.credentials ?? {})) {
			const credential = credentials[type];
			// A type each case binds to its own server's credential stays as the file names it, as n8n imports it.
			if (!credential && options.leaveUnbound?.includes(type)) continue;
			if (!credential) {
				throw new Error(
					`Node "${node.name}" of "${workflow.name}" uses a "${type}" credential, and none was created (known: ${Object.keys(credentials).join(', ')})`,
				);
			}
			node.credentials![type] = { id: credential.id, name: credential.name };
		}
		if (!node.webhookId && options.nodeTypesWithWebhooks?.has(node.type)) node.webhookId = randomUUID();
	}
	return copy;
}

export function manualTriggerNode(position: [number, number] = [0, 0]): WorkflowNode {
	return {
		id: randomUUID(),
		name: 'When clicking ‘Execute workflow’',
		type: MANUAL_TRIGGER_TYPE,
		typeVersion: 1,
		position,
		parameters: {},
	};
}

/**
 * A straight line of nodes: `nodes[0]` → `nodes[1]` → …; positions are laid out left to right.
 * Node credentials may be given by type only: `{ hostCloudApi: { name: '' } }` is bound on import.
 */
export function linearWorkflow(
	name: string,
	nodes: Array<Omit<WorkflowNode, 'position' | 'id'> & Partial<Pick<WorkflowNode, 'position' | 'id'>>>,
): WorkflowJson {
	const placed: WorkflowNode[] = nodes.map((node, index) => ({ id: randomUUID(), position: [index * 260, 0], ...node }) as WorkflowNode);
	const connections: Record<string, unknown> = {};
	for (let i = 0; i < placed.length - 1; i++) {
		connections[placed[i]!.name] = { main: [[{ node: placed[i + 1]!.name, type: 'main', index: 0 }]] };
	}
	return { name, nodes: placed, connections, settings: { executionOrder: 'v1' } };
}

/**
 * The demo and smoke workflow that needs only Host Cloud's first operation: Manual Trigger →
 * Host Cloud · System · Get Node Definitions (one node class). `npm start` runs it while
 * examples/text-to-image.json does not exist yet.
 */
export function nodeDefinitionsWorkflow(nodeClass = 'KSampler'): WorkflowJson {
	return linearWorkflow('Host Cloud: node definitions', [
		manualTriggerNode(),
		{
			name: 'Get Node Definitions',
			type: hostNodeType('hostCloud'),
			typeVersion: 1,
			parameters: { resource: 'system', operation: 'getNodeDefinitions', nodeClass },
			credentials: { hostCloudApi: { name: 'Host Cloud API' } },
		},
	]);
}

/** Every http(s) URL in a value (deep), e.g. the signed output URLs of a run. */
export function urlsIn(value: unknown, found: Set<string> = new Set()): string[] {
	if (typeof value === 'string') {
		if (/^https?:\/\/\S+$/.test(value)) found.add(value);
	} else if (Array.isArray(value)) {
		for (const item of value) urlsIn(item, found);
	} else if (value && typeof value === 'object') {
		for (const item of Object.values(value)) urlsIn(item, found);
	}
	return [...found];
}
