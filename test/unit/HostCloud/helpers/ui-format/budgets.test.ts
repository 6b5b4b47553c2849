/**
 * The converter's budgets against hostile saved workflows: a few kilobytes that expand to a
 * million nodes are refused, naming the budget; reroute chains are walked once, without recursion.
 */
import { CONVERSION_BUDGETS, convertUiWorkflow } from '../../../../../nodes/HostCloud/helpers/ui-format/convert';
import { conversionNotes } from '../../../../../nodes/HostCloud/helpers/graph/workflow-graph';
import { HOSTILE_DEFINITIONS as DEFINITIONS, nestedSubgraphs, rerouteChain, wideSubgraph } from '../../../../support/hostile-ui-workflows';

const convert = (workflow: object) => convertUiWorkflow(workflow as Record<string, unknown>, DEFINITIONS, 'Workflow');

test('a workflow of 11 KB that expands to a million nodes is refused, naming the budget', () => {
	const workflow = nestedSubgraphs(6, 10);
	expect(JSON.stringify(workflow).length).toBeLessThan(12_000);
	const result = convert(workflow);
	expect(result).toEqual({
		problem: {
			message: 'Workflow: the workflow expands to more than 20,000 nodes (subgraphs included), more than this node converts',
			hint: 'Export the workflow in API format (Workflow → Export (API)) to run it as it is, or make it smaller in the editor.',
		},
	});
});

test('nesting deeper than the budget is refused, naming it', () => {
	const result = convert(nestedSubgraphs(CONVERSION_BUDGETS.depth + 2, 1));
	expect('problem' in result && result.problem.message).toBe(
		`Workflow: the workflow nests subgraphs more than ${CONVERSION_BUDGETS.depth} deep, more than this node converts`,
	);
});

test('within the budgets, nested instances convert with their "a:b:c" ids', () => {
	const result = convert(nestedSubgraphs(3, 3));
	if (!('graph' in result)) throw new Error(result.problem.message);
	expect(Object.keys(result.graph)).toHaveLength(27);
	expect(result.graph['3:3:3:1']).toMatchObject({ class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } });
});

test('2,000 reroutes read by 2,000 inputs: every input leads to the real origin', () => {
	const result = convert(rerouteChain(2000, 2000));
	if (!('graph' in result)) throw new Error(result.problem.message);
	const decoders = Object.values(result.graph).filter((node) => node.class_type === 'VAEDecode');
	expect(decoders).toHaveLength(2000);
	for (const decoder of decoders) expect(decoder.inputs.samples).toEqual(['1', 0]);
});

test('a chain of 15,000 reroutes is followed without running out of stack', () => {
	const result = convert(rerouteChain(15_000, 1));
	if (!('graph' in result)) throw new Error(result.problem.message);
	expect(result.graph['1000000']!.inputs.samples).toEqual(['1', 0]);
});

// How long these take is a goal of the bench (`npm run bench -- conversion-budgets`), not of a test:
// a busy machine stretches any time a test could assert. For the same reason the converter's own
// wall-time budget (10 s) is lifted here: a loaded machine took longer, and these cases are about the
// other budgets and what the conversion gives.
describe('subgraph instances with tens of thousands of inputs convert, or are refused by the budget', () => {
	const { milliseconds } = CONVERSION_BUDGETS;
	beforeAll(() => (CONVERSION_BUDGETS.milliseconds = 10 * 60_000));
	afterAll(() => (CONVERSION_BUDGETS.milliseconds = milliseconds));

	test('a host saved with 60,000 inputs in reverse order of its definition’s: rebound by name', () => {
		const result = convert(wideSubgraph({ inputs: 60_000 }));
		if (!('graph' in result)) throw new Error(result.problem.message);
		// Values follow the host's saved order: its first value goes to the definition's last input.
		expect(result.graph['1:1']!.inputs).toMatchObject({ in59999: 64, in0: 64 + 59_999 });
		// The rebinding note names the first five inputs, not 60,000.
		expect(conversionNotes(result.graph)).toEqual([
			'node 1 (subgraph "Wide") was saved with other inputs than the subgraph has now: rebound as the editor does when it opens the file ("in59999", "in59998", "in59997", "in59996", "in59995" and 59995 more matched by name).',
		]);
	});

	test('a host with 60,000 inputs none of which its definition has: nothing bound', () => {
		const result = convert(wideSubgraph({ inputs: 60_000, hostInputs: 'other' }));
		if (!('graph' in result)) throw new Error(result.problem.message);
		expect(result.graph['1:1']!.inputs.in0).toBeUndefined();
	});

	test('60,000 proxyWidgets entries, each naming a definition input: placed by name', () => {
		const result = convert(wideSubgraph({ inputs: 60_000, hostInputs: 'none', proxyWidgets: true }));
		if (!('graph' in result)) throw new Error(result.problem.message);
		expect(result.graph['1:1']!.inputs.in59999).toBe(64 + 59_999);
	});

	test('many instances of a definition with 30,000 inputs pass the budget of slots: refused, naming it', () => {
		const result = convert(wideSubgraph({ inputs: 30_000, instances: 20, hostInputs: 'none' }));
		expect('problem' in result && result.problem.message).toBe(
			`Workflow: the workflow gives its subgraph instances more than ${CONVERSION_BUDGETS.slots.toLocaleString('en-US')} inputs and promoted widgets (their subgraphs' inputs included), more than this node converts`,
		);
	});
});
