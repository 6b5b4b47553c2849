/**
 * Set Inputs on an API-format graph: values coerced to the input they replace.
 */
import { applyInputOverrides, assetReferenceIn, coerceInputValue } from '../../../../../nodes/HostCloud/helpers/graph/input-overrides';
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

	test('an asset reference goes where a file name goes on v2, as given; on v1 it is refused naming v2', () => {
		const reference = { __type: 'core/ASSET', info: { id: 'a-1', file_path: 'cat.png' } };
		const loader = () => ({ '1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png', upload: 'image' } } }) as WorkflowGraph;
		const v2 = loader();
		expect(
			applyInputOverrides(v2, [{ nodeId: '1', inputName: 'image', value: reference }], 'Set Inputs', { assets: true }),
		).toBeUndefined();
		expect(v2['1']!.inputs.image).toEqual(reference);
		const text = loader();
		expect(
			applyInputOverrides(text, [{ nodeId: '1', inputName: 'image', value: JSON.stringify(reference) }], 'Set Inputs', { assets: true }),
		).toBeUndefined();
		expect(text['1']!.inputs.image).toEqual(reference);
		expect(applyInputOverrides(loader(), [{ nodeId: '1', inputName: 'image', value: reference }], 'Set Inputs')?.message).toBe(
			'Set Inputs (entry 1): input "image" of node "1" (LoadImage) needs text, and an asset reference (core/ASSET) was given, which only the v2 API takes (a Host Cloud V2 API credential)',
		);
		// Its JSON text is the same reference: refused on v1 as well.
		expect(
			applyInputOverrides(loader(), [{ nodeId: '1', inputName: 'image', value: JSON.stringify(reference) }], 'Set Inputs')?.message,
		).toMatch(/an asset reference \(core\/ASSET\) was given, which only the v2 API takes/);
		// A number input takes no reference, on v2 either.
		const steps = txt2img() as WorkflowGraph;
		expect(
			applyInputOverrides(steps, [{ nodeId: '3', inputName: 'steps', value: reference }], 'Set Inputs', { assets: true })?.message,
		).toMatch(/needs a number, and an object was given/);
	});

	test('an asset reference is the core/ASSET object with an info id, as an object or its JSON text', () => {
		expect(assetReferenceIn({ __type: 'core/ASSET', info: { id: 'a-1' } })).toEqual({ __type: 'core/ASSET', info: { id: 'a-1' } });
		expect(assetReferenceIn(' {"__type":"core/ASSET","info":{"id":"a-1"}}')).toEqual({ __type: 'core/ASSET', info: { id: 'a-1' } });
		for (const other of [
			{ __type: 'core/ASSET', info: { id: '' } },
			{ __type: 'core/ASSET' },
			{ __type: 'other', info: { id: 'a' } },
			'{"__type":',
			'cat.png',
			null,
			['core/ASSET'],
		])
			expect(assetReferenceIn(other)).toBeUndefined();
	});
});
