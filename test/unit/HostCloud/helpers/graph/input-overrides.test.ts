/**
 * Set Inputs on an API-format graph: values coerced to the input they replace.
 */
import { applyInputOverrides, coerceInputValue } from '../../../../../nodes/HostCloud/helpers/graph/input-overrides';
import type { WorkflowGraph } from '../../../../../nodes/HostCloud/helpers/graph/workflow-graph';
import { txt2img } from '../../../../support/cloud';

describe('setting inputs', () => {
	test('values take the type the input holds now', () => {
		expect(coerceInputValue(20, '30')).toEqual({ value: 30 });
		expect(coerceInputValue(1.5, ' 0.25 ')).toEqual({ value: 0.25 });
		expect(coerceInputValue(20, 'lots')).toEqual({ problem: '"lots" is not a number' });
		expect(coerceInputValue(20, '')).toEqual({ problem: '"" is not a number' });
		expect(coerceInputValue(false, 'TRUE')).toEqual({ value: true });
		expect(coerceInputValue(true, 'yes')).toEqual({ problem: '"yes" is not true or false' });
		expect(coerceInputValue('euler', '42')).toEqual({ value: '42' });
		expect(coerceInputValue(undefined, '42')).toEqual({ value: 42 });
		expect(coerceInputValue(undefined, 'false')).toEqual({ value: false });
		expect(coerceInputValue(undefined, 'hello')).toEqual({ value: 'hello' });
		// Values that are not text (from expressions or AI agents) keep the input's kind, or are refused.
		expect(coerceInputValue('text', 7)).toEqual({ value: '7' });
		expect(coerceInputValue('text', true)).toEqual({ value: 'true' });
		expect(coerceInputValue(20, 7)).toEqual({ value: 7 });
		expect(coerceInputValue(undefined, 7)).toEqual({ value: 7 });
		expect(coerceInputValue('text', ['4', 0])).toEqual({ problem: 'a list was given (["4",0])' });
		expect(coerceInputValue(undefined, ['4', 0])).toEqual({ problem: 'a list was given (["4",0])' });
		expect(coerceInputValue(20, true)).toEqual({ problem: 'a boolean was given (true)' });
		expect(coerceInputValue(true, 1)).toEqual({ problem: 'a number was given (1)' });
		expect(coerceInputValue('text', { a: 1 })).toEqual({ problem: 'an object was given ({"a":1})' });
		expect(coerceInputValue({ __value__: ['a'] }, { __value__: ['b'] })).toEqual({ value: { __value__: ['b'] } });
	});

	test('overrides apply in order and name the entry at fault', () => {
		const graph = txt2img() as WorkflowGraph;
		expect(
			applyInputOverrides(
				graph,
				[
					{ nodeId: '6', inputName: 'text', value: 'a fox' },
					{ nodeId: ' 3 ', inputName: 'steps', value: '8' },
				],
				'Set Inputs',
			),
		).toBeUndefined();
		expect(graph['6']!.inputs.text).toBe('a fox');
		expect(graph['3']!.inputs.steps).toBe(8);
		expect(
			applyInputOverrides(
				graph,
				[
					{ nodeId: '6', inputName: 'text', value: 'x' },
					{ nodeId: '', inputName: 'a', value: 1 },
				],
				'Set Inputs',
			)?.message,
		).toBe('Set Inputs (entry 2) has no node');
		expect(applyInputOverrides(graph, [{ nodeId: '3', inputName: '', value: 1 }], 'Set Inputs')).toMatchObject({
			message: 'Set Inputs (entry 1) has no input name',
			hint: expect.stringContaining('seed, steps, cfg'),
		});
	});
});
