/**
 * Structural sweep, part 1 (issue 27): what the user, an expression or an AI agent gives the
 * nodes. For every operation the node descriptions list, fast-check puts a hostile STRUCTURE or
 * NAME where a field's value goes (names every object carries, ids that cannot be a path segment,
 * a list or object where text goes and the reverse, values nested past any bound), and draws the
 * same into Set Inputs, Input Images, binary field names, AI tool arguments and pasted workflows in
 * API and UI format. Run through n8n's engine against a loopback service that refuses every request.
 *
 * Oracle (test/support/hostile-structures.ts): the item ends within its bound; an error is in words
 * (no raw TypeError/RangeError text); no secret shows; no request carries a path segment that is
 * not one, or "[object Object]"; a text input of the workflow is sent as text or refused by name;
 * a value refused by the node's own checks sent nothing. Replay a run with
 * BAD_INPUT_SEED (printed in the test names).
 */
import type { ServerResponse } from 'node:http';

import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { buildCatalogue } from '../../../simulator/cloud/catalogue';
import { EngineHarness } from '../../support/engine';
import { registerToolTypes, runAsAgentTool } from '../../support/tools';
import { txt2img } from '../../support/cloud';
import { sendJson, type SeenRequest } from '../../support/hostile-service';
import {
	OWN_NAMES,
	SEED,
	STRUCTURE_RUNS,
	STRUCTURE_TIMEOUT_MS,
	badSegment,
	deepText,
	depth,
	judgeShown,
	ownName,
	recordStructureTally,
	structureTally,
	violation,
	withOwnKeys,
	within,
} from '../../support/hostile-structures';
import { operationsOf, visibleFields, withField, type Parameters } from '../../support/node-parameters';
import {
	ITEM,
	nodeDescription,
	runSwept,
	sweepBase,
	sweepCredential,
	type SweepRun,
	type SweepSecrets,
} from '../../support/sweep-operations';
import { startSweepService, type SweepService } from '../../support/sweep-service';
import { uiTxt2img, uiTxt2imgInSubgraph } from '../../support/ui-workflows';

const CREDENTIAL_SECRETS: SweepSecrets = {
	cloudKey: 'structure-cloud-key-4b7d',
	accessToken: 'structure-access-token-8e21',
	publishingToken: 'structure-publishing-token-c3f0',
	repohostToken: 'structure-repohost-token-96aa',
};
const SECRETS = Object.values(CREDENTIAL_SECRETS);

const harness = new EngineHarness();
let service: SweepService;

/** Node definitions for UI-format conversion; a job's status says it failed; every other request is refused. */
function refuseAll(req: SeenRequest, res: ServerResponse): void {
	const path = req.url.split('?')[0]!;
	if (path === '/api/object_info') return sendJson(res, 200, buildCatalogue());
	if (/^\/api\/job\/[^/]+\/status/.test(path)) return sendJson(res, 200, { status: 'failed' });
	sendJson(res, 400, { message: 'structure sweep: refused' });
}

beforeAll(async () => {
	service = await startSweepService(refuseAll);
	registerToolTypes(harness);
});

afterAll(async () => {
	await service.close();
	recordStructureTally('input');
});

const runOnce = (type: string, parameters: Parameters, item = ITEM): Promise<SweepRun> =>
	within(
		15_000,
		`${type} ${JSON.stringify(parameters).slice(0, 200)}`,
		runSwept(harness, { service, secrets: CREDENTIAL_SECRETS }, { type, parameters, item }),
	);

/** A JSON value as an expression gives it (an object or list from `{{ }}`), so n8n hands it over unwalked. */
const fromExpression = (jsonText: string) => `={{ JSON.parse(${JSON.stringify(jsonText)}) }}`;

/** What goes where a field's value goes. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
	ownName,
	badSegment,
	fc.constantFrom<unknown>(42, -1, 1.5, 1e21, true, false, null),
	fc.constantFrom('[1,2]', '["6",0]', '["a","b"]', '{"a":1}', '{}', '[]').map(fromExpression),
	depth.map((levels) => fromExpression(deepText(levels))),
	fc.subarray(OWN_NAMES, { minLength: 1 }).map((keys) => fromExpression(JSON.stringify(withOwnKeys(keys, (key) => key)))),
);

/** The oracle every run of this file is held to. */
function judge(run: SweepRun, what: { field?: string; textInput?: boolean } = {}): void {
	const words = `${run.error?.message ?? ''} ${run.error?.description ?? ''}`;
	judgeShown({ error: run.error, words, output: run.output, sent: run.sent, secrets: SECRETS });
	for (const request of run.sent) expect(`${request.url} ${request.body}`).not.toContain('[object Object]');
	const refused = run.error !== undefined && (run.error as Error).name !== 'NodeApiError' && run.sent.length === 0;
	if (refused) structureTally.refused_before_sending++;
	// A value the node itself refused by name sent nothing (reading the node definitions a UI-format workflow needs sends nothing of it).
	const sentInput = run.sent.filter((request) => !(request.method === 'GET' && request.url.startsWith('/api/object_info')));
	if (what.field && run.error?.message.startsWith(what.field) && (run.error as Error).name === 'NodeOperationError')
		expect({ sent: sentInput.map((request) => request.url) }).toEqual({ sent: [] });
	if (what.textInput) {
		const submit = run.sent.find((request) => request.url.startsWith('/api/prompt'));
		if (submit) {
			const text = (JSON.parse(submit.body) as { prompt: Record<string, { inputs: IDataObject }> }).prompt['6']?.inputs.text;
			expect(violation('wrong_successes', typeof text !== 'string') ? text : 'text').toBe('text');
		}
	}
}

const node = (type: string) => nodeDescription(harness, type);
const OPERATIONS = ['hostCloud', 'hostMedia', 'hostRegistry'].flatMap((type) =>
	operationsOf(node(type)).map(([resource, operation]): [string, string, string] => [type, resource, operation]),
);
const SWEPT_TYPES = new Set(['string', 'json', 'number', 'options', 'boolean']);

describe(`structural sweep over parameters (seed ${SEED}; replay with BAD_INPUT_SEED=${SEED})`, () => {
	test.each(OPERATIONS)(
		'%s %s: %s',
		async (type, resource, operation) => {
			const base = sweepBase(harness, type, resource, operation);
			const fields = visibleFields(node(type), base).filter(
				(field) => SWEPT_TYPES.has(field.property.type) && !field.property.typeOptions?.loadOptionsMethod,
			);
			if (fields.length === 0) return;
			await fc.assert(
				fc.asyncProperty(fc.constantFrom(...fields), hostileValue, async (field, value) => {
					judge(await runOnce(type, withField(base, field, value)), { field: field.displayName });
				}),
				{ seed: SEED, numRuns: STRUCTURE_RUNS, endOnFailure: true },
			);
		},
		STRUCTURE_TIMEOUT_MS,
	);
});

describe(`structural sweep over Set Inputs, Input Images and binary field names (seed ${SEED})`, () => {
	const submit = sweepBase(harness, 'hostCloud', 'workflow', 'submit');
	const id = fc.oneof(ownName, badSegment, fc.constantFrom('6', '3', '999'));

	test(
		'Set Inputs: node ids and input names every object carries, values of every type',
		async () => {
			const override = fc.record({ nodeId: id, inputName: fc.oneof(ownName, fc.constantFrom('text', 'seed', '')), value: hostileValue });
			await fc.assert(
				fc.asyncProperty(override, async (values) => {
					judge(await runOnce('hostCloud', { ...submit, inputOverrides: { values: [values] } }), { textInput: true });
				}),
				{ seed: SEED, numRuns: STRUCTURE_RUNS * 3, endOnFailure: true },
			);
		},
		STRUCTURE_TIMEOUT_MS,
	);

	test(
		'Set Inputs: the prompt text given a list, an object, a number or a boolean is sent as text or refused by name',
		async () => {
			await fc.assert(
				fc.asyncProperty(hostileValue, async (value) => {
					judge(await runOnce('hostCloud', { ...submit, inputOverrides: { values: [{ nodeId: '6', inputName: 'text', value }] } }), {
						textInput: true,
					});
				}),
				{ seed: SEED, numRuns: STRUCTURE_RUNS * 2, endOnFailure: true },
			);
		},
		STRUCTURE_TIMEOUT_MS,
	);

	test(
		'Input Images and binary field names',
		async () => {
			const picks = fc.oneof(
				fc.record({ nodeId: id, binaryPropertyName: fc.oneof(ownName, badSegment, fc.constant('data')) }).map((values) => ({
					type: 'hostCloud',
					parameters: { ...submit, inputImages: { values: [values] } } as Parameters,
				})),
				fc.oneof(ownName, badSegment, fc.constant(42)).map((name) => ({
					type: 'hostCloud',
					parameters: { ...sweepBase(harness, 'hostCloud', 'file', 'uploadImage'), binaryPropertyName: name } as Parameters,
				})),
				fc.oneof(ownName, badSegment, fc.constant(42)).map((name) => ({
					type: 'hostMedia',
					parameters: {
						...sweepBase(harness, 'hostMedia', 'image', 'upscale'),
						imageSource: 'binary',
						imageBinaryProperty: name,
					} as Parameters,
				})),
			);
			await fc.assert(
				fc.asyncProperty(picks, async ({ type, parameters }) => judge(await runOnce(type, parameters))),
				{ seed: SEED, numRuns: STRUCTURE_RUNS * 2, endOnFailure: true },
			);
		},
		STRUCTURE_TIMEOUT_MS,
	);
});

describe(`structural sweep over AI tool arguments (seed ${SEED})`, () => {
	const argument = fc.oneof(ownName, badSegment, fc.constantFrom<unknown>(42, true, null, [1, 2], ['6', 0], { a: 1 }, {}));
	const tools = [
		{
			name: 'Check Job',
			parameters: { resource: 'workflow', operation: 'getStatus', promptId: "={{ $fromAI('prompt_id', 'the job', 'string') }}" },
		},
		{
			name: 'Make Image',
			parameters: {
				resource: 'workflow',
				operation: 'submit',
				workflow: JSON.stringify(txt2img()),
				inputOverrides: { values: [{ nodeId: '6', inputName: 'text', value: "={{ $fromAI('prompt_id', 'what to draw', 'string') }}" }] },
			},
		},
		{
			name: 'Get Status',
			parameters: { resource: 'workflow', operation: 'getStatus', promptId: "={{ $fromAI('prompt_id', 'the job', 'string') }}" },
		},
	];

	test(
		'an argument of any name or type ends in words or a request with sound paths and a text prompt',
		async () => {
			await fc.assert(
				fc.asyncProperty(fc.constantFrom(...tools), argument, async (tool, value) => {
					const own = service.newRun();
					const credentials = sweepCredential(harness, own.url, CREDENTIAL_SECRETS, 'hostCloud', tool.parameters);
					const run = await within(
						15_000,
						tool.name,
						runAsAgentTool(harness, { ...tool, type: 'hostCloud', credentials }, { prompt_id: value as IDataObject[string] }).then(
							(result) => ({ error: result.error(tool.name), output: result.items }),
							(error: unknown) => ({ error, output: [] }),
						),
					);
					const { sent } = service.recordOf(own.run);
					judge({ error: run.error as SweepRun['error'], sent: [...sent], sockets: 0, output: run.output }, { textInput: true });
				}),
				{ seed: SEED, numRuns: STRUCTURE_RUNS * 2, endOnFailure: true },
			);
		},
		STRUCTURE_TIMEOUT_MS,
	);
});

/** Changes one node of a workflow (API format) into a hostile one. */
const apiGraphs: fc.Arbitrary<unknown> = fc.oneof(
	fc
		.record({ id: fc.oneof(ownName, badSegment), classType: fc.oneof(ownName, fc.constant<unknown>(7), fc.constant('KSampler')) })
		.map(({ id, classType }) => ({ ...txt2img(), ...withOwnKeys([id], () => ({ class_type: classType, inputs: { model: ['4', 0] } })) })),
	fc
		.record({
			name: ownName,
			link: fc.oneof(
				ownName.map((key) => [key, 0]),
				fc.constantFrom<unknown>(['4', -1], ['4', '0'], ['4', 0, 0], ['4'], [[], 0]),
			),
		})
		.map(({ name, link }) => {
			const graph = txt2img() as Record<string, { inputs: Record<string, unknown> }>;
			graph['3']!.inputs = { ...graph['3']!.inputs, ...withOwnKeys([name], () => link), seed: link };
			return graph;
		}),
	fc.subarray(OWN_NAMES, { minLength: 1 }).map((keys) => withOwnKeys(keys, () => ({ class_type: 'SaveImage', inputs: {} }))),
	fc.record({ key: ownName }).map(({ key }) => ({ prompt: withOwnKeys([key], () => txt2img()['3']) })),
);

/** Changes a saved workflow (UI format) where names, ids and links are read. */
const uiGraphs: fc.Arbitrary<unknown> = fc
	.record({
		base: fc.constantFrom(uiTxt2img, uiTxt2imgInSubgraph),
		where: fc.constantFrom('id', 'type', 'link', 'widgets', 'inputName', 'subgraph', 'links'),
		name: fc.oneof(ownName, badSegment, fc.constantFrom<unknown>(-1, 1e21, null, [], {}, [1, 2])),
	})
	.map(({ base, where, name }) => {
		const workflow = base() as unknown as Record<string, unknown> & { nodes: Array<Record<string, unknown>>; links: unknown[] };
		const first = workflow.nodes[workflow.nodes.length - 1]!;
		if (where === 'id') first.id = name;
		if (where === 'type') first.type = name;
		if (where === 'widgets') first.widgets_values = typeof name === 'string' ? withOwnKeys([name], () => 1) : name;
		if (where === 'inputName') (first.inputs as Array<Record<string, unknown>>)[0] ??= { name, type: '*', link: null };
		if (where === 'inputName') (first.inputs as Array<Record<string, unknown>>)[0]!.name = name;
		if (where === 'link') workflow.links.push([9999, name, 0, first.id, 0, 'LATENT']);
		if (where === 'links') workflow.links = typeof name === 'string' ? (withOwnKeys([name], () => [1]) as never) : (name as never);
		if (where === 'subgraph') {
			const definitions = (workflow.definitions ?? {}) as { subgraphs?: Array<Record<string, unknown>> };
			for (const subgraph of definitions.subgraphs ?? []) subgraph.id = name;
			first.type = name;
		}
		return workflow;
	});

describe(`structural sweep over pasted workflows (seed ${SEED})`, () => {
	test.each([
		['API format', apiGraphs],
		['UI format', uiGraphs],
	])(
		'%s: names, ids and links every object carries, as text and as an object',
		async (_format, graphs) => {
			const submit = sweepBase(harness, 'hostCloud', 'workflow', 'submit');
			await fc.assert(
				fc.asyncProperty(graphs, fc.boolean(), async (graph, asText) => {
					const workflow = asText ? JSON.stringify(graph) : fromExpression(JSON.stringify(graph));
					judge(await runOnce('hostCloud', { ...submit, workflow }), { field: 'Workflow' });
				}),
				{ seed: SEED, numRuns: STRUCTURE_RUNS * 3, endOnFailure: true },
			);
		},
		STRUCTURE_TIMEOUT_MS,
	);
});
