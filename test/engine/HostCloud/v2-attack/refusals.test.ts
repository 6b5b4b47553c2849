/**
 * Outside attack on the refusals by generation (docs/host-cloud.md, "v1 and v2"; docs/ai-agents.md,
 * "Host Cloud on v2"): every operation as a tool on v2 (a pasted workflow may hold any), and API
 * Generation absent or odd in a pasted workflow. A refusal comes before anything is sent, holds no
 * secret, and, on v2, sends the agent to no tool v2 refuses.
 */
import { API_KEY, nodeSpec, useHostileV2, visible } from './hostile-v2';
import { registerToolTypes, runAsAgentTool } from '../../../support/tools';
import { resources } from '../../../../nodes/HostCloud/actions/router';

/** The tools v2 refuses, by the names an agent or a description would use. */
const REFUSED_ON_V2 = /Get Status|Wait for Completion|Cancel Jobs|Get Job Workflow/;

const v2 = useHostileV2((server) => registerToolTypes(server.harness));

const FIELDS = { promptId: 'j1', promptIds: 'j1', jobId: 'j1', assetId: 'a1', executionId: '1', workflow: '{}' };
const everyOperation = Object.entries(resources).flatMap(([resource, module]) =>
	Object.keys((module as { operations: Record<string, unknown> }).operations).map((operation) => [resource, operation] as const),
);

/** "Get Job Workflow": the operation as its dropdown names it. */
function ownName(resource: string, operation: string): string {
	const described = (
		resources as unknown as Record<string, { description: Array<{ name: string; options?: Array<{ name: string; value: string }> }> }>
	)[resource]!.description;
	return described.find((property) => property.name === 'operation')!.options!.find((option) => option.value === operation)!.name;
}

describe('as a tool on v2', () => {
	// Found by the outside attack: Download Output and Get Output URL, refused as tools on both
	// generations, sent the agent to the Get Status tool, which v2 refuses as a tool.
	test.each(everyOperation.filter(([resource, operation]) => !(resource === 'workflow' && ['execute', 'submit'].includes(operation))))(
		'%s → %s: refused before anything is sent, naming no tool v2 refuses',
		async (resource, operation) => {
			const result = await runAsAgentTool(v2.harness, { name: 'Host Cloud', ...nodeSpec(v2, { resource, operation, ...FIELDS }) }, {});
			const error = result.error('Host Cloud');

			expect(error?.message).toBeTruthy();
			// An operation may name itself ("Get Job Workflow reads any job…"), never send the agent to another.
			expect(`${error?.message} ${error?.description}`.replace(ownName(resource, operation), '')).not.toMatch(REFUSED_ON_V2);
			expect(v2.api.seen).toEqual([]);
			expect(visible({ items: result.items, error: () => error })).not.toContain(API_KEY);
		},
	);
});

describe('API Generation in a pasted workflow', () => {
	test.each([
		['upper case', 'V2'],
		['padded', ' v2'],
		['a number', 2],
		['true', true],
		['null', null],
		['a list', ['v2']],
		['an object', { v2: true }],
		['a 100 kB text', 'v'.repeat(100_000)],
	])('%s: refused by name before anything is sent, the message bounded and without the key', async (_name, value) => {
		for (const [resource, operation] of [
			['workflow', 'execute'],
			['workflow', 'getJobWorkflow'],
			['queue', 'get'],
		] as const) {
			const spec = nodeSpec(v2, { resource, operation, ...FIELDS });
			const result = await v2.harness.runNode({ ...spec, parameters: { ...(spec.parameters as object), apiGeneration: value } as never }, [
				{ json: {} },
			]);

			expect(result.status).toBe('error');
			expect(result.error('Node')?.message).toMatch(/^API Generation must be "v1" or "v2"/);
			expect(String(result.error('Node')?.message).length).toBeLessThan(500);
			expect(visible(result)).not.toContain(API_KEY);
		}
		expect(v2.api.seen).toEqual([]);
	});

	/** A Host Cloud node with `parameters` (no API Generation) and only a Host Cloud V2 API credential. */
	const runWithV2CredentialOnly = (parameters: Record<string, unknown>) =>
		v2.harness.runNode({ type: 'hostCloud', parameters: parameters as never, credentials: { hostCloudV2Api: v2.credential } }, [
			{ json: {} },
		]);

	test('absent, with only a Host Cloud V2 API credential: the node speaks v1; a v2-only operation is refused by name, nothing sent', async () => {
		const result = await runWithV2CredentialOnly({ resource: 'workflow', operation: 'getJobWorkflow', jobId: 'j1' });

		expect(result.error('Node')?.message).toMatch(/^Workflow → Get Job Workflow is not available on the v1 API/);
		expect(v2.api.seen).toEqual([]);
		expect(visible(result)).not.toContain(API_KEY);
	});

	test('absent, with only a Host Cloud V2 API credential: Execute (v1) finds no v1 credential and sends nothing', async () => {
		const result = await runWithV2CredentialOnly({ resource: 'workflow', operation: 'execute', workflow: '{}' });

		expect(result.status).toBe('error');
		expect(v2.api.seen).toEqual([]);
		expect(visible(result)).not.toContain(API_KEY);
	});

	test('v2 with only a Host Cloud API (v1) credential: a v1-only operation is refused by name, nothing sent with either key', async () => {
		const v1 = v2.harness.addCredential('hostCloudApi', { apiKey: API_KEY, baseUrl: v2.api.url }, 'Host Cloud API');
		const result = await v2.harness.runNode(
			{
				type: 'hostCloud',
				parameters: { apiGeneration: 'v2', resource: 'queue', operation: 'get' } as never,
				credentials: { hostCloudApi: v1 },
			},
			[{ json: {} }],
		);

		expect(result.error('Node')?.message).toMatch(/^Queue → Get is not available on the v2 API/);
		expect(v2.api.seen).toEqual([]);
	});
});
