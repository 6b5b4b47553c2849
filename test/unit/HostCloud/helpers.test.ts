/**
 * Pure helpers of the Host Cloud node: reading and checking API-format graphs (UI-format ones: helpers/ui-format/workflow.test.ts), setting inputs,
 * spotting partner nodes, walking output file references, preview frames, job status words,
 * execution error wording, the WebSocket address, multipart bodies and the editor's dropdowns.
 */
import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { getImageLoaderNodes, getNodeInputs, getWorkflowNodes } from '../../../nodes/HostCloud/methods/load-options';
import { describeExecutionError } from '../../../nodes/HostCloud/helpers/job-reports/execution-errors';
import { socketBaseUrl } from '../../../credentials/cloud-server';
import { multipartBody } from '../../../nodes/shared/transport/multipart';
import { collectOutputFiles, mergeNodeOutput, mimeTypeFor } from '../../../nodes/HostCloud/helpers/files/output-files';
import { parsePreviewFrame } from '../../../nodes/HostCloud/helpers/progress-socket/preview-frames';
import { cloudJobStateOf } from '../../../nodes/HostCloud/helpers/job-reports/job-state';
import { applyInputOverrides, coerceInputValue } from '../../../nodes/HostCloud/helpers/graph/input-overrides';
import { graphNodeChoices } from '../../../nodes/HostCloud/helpers/graph/node-choices';
import { hasKnownPartnerNodes, hasPartnerNodes } from '../../../nodes/HostCloud/helpers/graph/class-definitions';
import { parseWorkflowGraph, type WorkflowGraph } from '../../../nodes/HostCloud/helpers/graph/workflow-graph';
import { parseMultipart, type SimRequest } from '../../../simulator/shared/core';
import { metadataPreviewFrame, previewFrame, textFrame } from '../../../simulator/cloud/ws';
import { txt2img } from '../../support/cloud';

const FIELD = 'Workflow';

describe('parseWorkflowGraph', () => {
	test('reads JSON text or an object, and a whole submit body', () => {
		const graph = txt2img();
		expect(parseWorkflowGraph(JSON.stringify(graph), FIELD)).toEqual({ graph });
		expect(parseWorkflowGraph(graph, FIELD)).toEqual({ graph });
		expect(parseWorkflowGraph({ prompt: graph, extra_data: {} }, FIELD)).toEqual({ graph });
	});

	test('hands back a copy: changing it does not touch the parameter value', () => {
		const graph = txt2img();
		const parsed = parseWorkflowGraph(graph, FIELD) as { graph: WorkflowGraph };
		parsed.graph['3']!.inputs.seed = 1;
		expect(graph['3']!.inputs.seed).not.toBe(1);
	});

	test('hands a UI-format workflow (alone or inside a submit body) on to be converted', () => {
		const ui = { last_node_id: 2, nodes: [], links: [] };
		expect(parseWorkflowGraph(ui, FIELD)).toEqual({ uiWorkflow: ui });
		expect(parseWorkflowGraph(JSON.stringify({ prompt: { nodes: [], links: [], version: 0.4 } }), FIELD)).toEqual({
			uiWorkflow: { nodes: [], links: [], version: 0.4 },
		});
	});

	const problems: Array<[string, unknown, RegExp]> = [
		['bad JSON', '{"1":', /is not valid JSON/],
		['blank', '   ', /is empty/],
		['array', [], /must be a JSON object keyed by node id/],
		['number', 3, /must be a JSON object keyed by node id/],
		['no nodes', {}, /has no nodes/],
		['node not an object', { '1': 'x' }, /node "1" is not an object/],
		['empty class_type', { '1': { class_type: ' ', inputs: {} } }, /node "1" has no class_type/],
		['inputs not an object', { '1': { class_type: 'SaveImage', inputs: [] } }, /node "1" \(SaveImage\) has no inputs object/],
		[
			'dangling link',
			{ '1': { class_type: 'SaveImage', inputs: { images: ['7', 0] } } },
			/links to node "7", which is not in the workflow/,
		],
	];
	test.each(problems)('%s is refused with the field name', (_name, value, message) => {
		const result = parseWorkflowGraph(value, FIELD);
		expect('problem' in result && result.problem.message).toMatch(/^Workflow\b/);
		expect('problem' in result && result.problem.message).toMatch(message);
	});

	test('the hint says how to export the API format', () => {
		const result = parseWorkflowGraph('{"3": {', FIELD);
		expect('problem' in result && result.problem.hint).toMatch(/Export \(API\)/);
	});
});

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

describe('partner nodes', () => {
	const graph = (classType: string): WorkflowGraph => ({ '1': { class_type: classType, inputs: {} } });
	test('the node definitions decide where they know the class', () => {
		expect(hasPartnerNodes(graph('MyNode'), { MyNode: { api_node: true } })).toBe(true);
		expect(hasPartnerNodes(graph('MyNode'), { MyNode: { python_module: 'host_api_nodes.nodes_x' } })).toBe(true);
		expect(hasPartnerNodes(graph('MyNode'), { MyNode: { input: { hidden: { api_key_host_org: 'API_KEY_HOST_ORG' } } } })).toBe(true);
		expect(hasPartnerNodes(graph('KSampler'), { KSampler: { python_module: 'nodes' } })).toBe(false);
		// Known to the definitions as a plain node, even with a partner-like name.
		expect(hasPartnerNodes(graph('PartnerLookalike'), { PartnerLookalike: { api_node: false, python_module: 'nodes' } })).toBe(false);
	});

	test('the documented fallback list decides otherwise', () => {
		expect(hasPartnerNodes(graph('OpenAIGPTImage1'))).toBe(true);
		expect(hasPartnerNodes(graph('KlingTextToVideoNode'), {})).toBe(true);
		expect(hasPartnerNodes(graph('KSampler'))).toBe(false);
		expect(hasKnownPartnerNodes(graph('PartnerImageGenerate'))).toBe(true);
		expect(hasKnownPartnerNodes(graph('SaveImage'))).toBe(false);
	});
});

describe('output file references', () => {
	test('every array of file references is walked, with defaults, node ids and kinds, in node order', () => {
		const files = collectOutputFiles({
			'15': { audio: [{ filename: 'song_00001_.wav', subfolder: 'audio' }] },
			'9': { images: [{ filename: 'a.png', subfolder: '', type: 'output' }, { filename: 'b.png' }], animated: [false] },
			'11': { video: [{ filename: 'clip.mp4' }] },
			'12': {
				gifs: [
					{ filename: 'loop.mp4', subfolder: 'anim', type: 'output', format: 'video/h264-mp4' },
					{ filename: 'loop.gif', type: 'temp' },
				],
			},
			'30': { text: ['hello'], mesh: [{ filename: 'model.glb' }], broken: [{ filename: '' }, null, 'x'] },
			'40': 'not an object',
		});
		expect(
			files.map((file) => [file.node_id, file.output_key, file.filename, file.subfolder, file.type, file.kind, file.mime_type]),
		).toEqual([
			['9', 'images', 'a.png', '', 'output', 'image', 'image/png'],
			['9', 'images', 'b.png', '', 'output', 'image', 'image/png'],
			['11', 'video', 'clip.mp4', '', 'output', 'video', 'video/mp4'],
			['12', 'gifs', 'loop.mp4', 'anim', 'output', 'video', 'video/mp4'],
			['12', 'gifs', 'loop.gif', '', 'temp', 'image', 'image/gif'],
			['15', 'audio', 'song_00001_.wav', 'audio', 'output', 'audio', 'audio/wav'],
			['30', 'mesh', 'model.glb', '', 'output', 'file', 'application/octet-stream'],
		]);
		expect(files[3]).toMatchObject({ format: 'video/h264-mp4' });
	});

	test('the same file reported twice is listed once; a node reporting twice keeps both lists', () => {
		const merged = mergeNodeOutput({ images: [{ filename: 'a.png' }] }, { images: [{ filename: 'b.png' }, { filename: 'a.png' }] });
		expect(collectOutputFiles({ '9': merged }).map((file) => file.filename)).toEqual(['a.png', 'b.png']);
	});

	test('MIME types come from the extension', () => {
		expect(mimeTypeFor('x.JPEG')).toBe('image/jpeg');
		expect(mimeTypeFor('x.webm')).toBe('video/webm');
		expect(mimeTypeFor('noextension')).toBe('application/octet-stream');
	});
});

describe('binary preview frames', () => {
	const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);
	const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 9]);
	const arrayBufferOf = (buffer: Buffer): ArrayBuffer =>
		buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;

	test('type 1: JPEG or PNG, no job named', () => {
		expect(parsePreviewFrame(arrayBufferOf(previewFrame(1, jpeg)))).toEqual({ mimeType: 'image/jpeg', image: jpeg });
		expect(parsePreviewFrame(previewFrame(2, png))).toEqual({ mimeType: 'image/png', image: png });
	});

	test('type 4: the metadata header names the job and node', () => {
		const frame = metadataPreviewFrame({ node_id: '3', prompt_id: 'p-1', image_type: 'image/png' }, png);
		expect(parsePreviewFrame(new Uint8Array(frame))).toEqual({ mimeType: 'image/png', image: png, promptId: 'p-1', nodeId: '3' });
		const asJpeg = metadataPreviewFrame({ prompt_id: 'p-2', image_type: 'image/jpeg' }, jpeg);
		expect(parsePreviewFrame(asJpeg)).toMatchObject({ mimeType: 'image/jpeg', promptId: 'p-2' });
	});

	test('type 3 (text), unknown types and malformed frames are ignored', () => {
		expect(parsePreviewFrame(textFrame('3', 'Sampling'))).toBeUndefined();
		expect(parsePreviewFrame(Buffer.from([0, 0, 0, 9, 0, 0, 0, 1, 5]))).toBeUndefined();
		expect(parsePreviewFrame(Buffer.from([0, 0, 0, 1]))).toBeUndefined();
		expect(parsePreviewFrame(previewFrame(1, Buffer.alloc(0)))).toBeUndefined();
		const unknownImageType = previewFrame(1, jpeg);
		unknownImageType.writeUInt32BE(7, 4);
		expect(parsePreviewFrame(unknownImageType)).toBeUndefined();
		const overlong = Buffer.from([0, 0, 0, 4, 0, 0, 1, 0, 0x7b, 0x7d]);
		expect(parsePreviewFrame(overlong)).toBeUndefined();
		const badJson = Buffer.concat([Buffer.from([0, 0, 0, 4, 0, 0, 0, 2]), Buffer.from('{x'), png]);
		expect(parsePreviewFrame(badJson)).toBeUndefined();
	});
});

describe('job status words', () => {
	test.each([
		['completed', 'completed'],
		['SUCCESS', 'completed'],
		[' Success ', 'completed'],
		['failed', 'failed'],
		['Error', 'failed'],
		['lost', 'failed'],
		['cancelled', 'cancelled'],
		['CANCELED', 'cancelled'],
		['interrupted', 'cancelled'],
		['pending', 'running'],
		['in_progress', 'running'],
		['queued', 'running'],
		['something new', 'running'],
		[undefined, 'running'],
	])('%s → %s', (word, state) => {
		expect(cloudJobStateOf(word)).toBe(state);
	});
});

describe('messages and addresses', () => {
	test('execution errors in plain words, unknown types passed on', () => {
		expect(
			describeExecutionError('p-1', {
				exception_type: 'OOMError',
				exception_message: 'CUDA out of memory',
				node_id: '3',
				node_type: 'KSampler',
			}),
		).toEqual({
			message: 'Job p-1 failed at node 3 (KSampler): the cloud ran out of GPU memory (OOMError: CUDA out of memory)',
			description: expect.stringMatching(/smaller image size/),
		});
		expect(describeExecutionError('p-2', { exception_type: 'RuntimeError', exception_message: 'boom' }).message).toBe(
			'Job p-2 failed: RuntimeError: boom',
		);
	});

	test('the WebSocket address comes from the credential or the base URL', () => {
		expect(socketBaseUrl('https://cloud.example/', '')).toBe('wss://cloud.example');
		expect(socketBaseUrl('http://127.0.0.1:8188')).toBe('ws://127.0.0.1:8188');
		expect(socketBaseUrl('https://cloud.example', 'wss://socket.example/ws/')).toBe('wss://socket.example');
		expect(socketBaseUrl('HTTPS://cloud.example/base')).toBe('wss://cloud.example/base');
	});

	test('multipart bodies read back as the service reads them', () => {
		const image = Buffer.from([0, 1, 2, 13, 10, 45, 45, 255]);
		const { body, contentType } = multipartBody({ type: 'input', original_ref: '{"filename":"a \\"b\\".png"}' }, [
			{ name: 'image', data: image, fileName: 'my "cat".png', contentType: 'image/png' },
		]);
		const parts = parseMultipart({ headers: { 'content-type': contentType }, rawBody: body } as unknown as SimRequest)!;
		expect(parts.map((part) => [part.name, part.filename, part.contentType])).toEqual([
			['type', undefined, undefined],
			['original_ref', undefined, undefined],
			['image', 'my %22cat%22.png', 'image/png'],
		]);
		expect(parts[0]!.data.toString()).toBe('input');
		expect(JSON.parse(parts[1]!.data.toString())).toEqual({ filename: 'a "b".png' });
		expect(parts[2]!.data.equals(image)).toBe(true);
	});
});

describe('dropdowns of the editor', () => {
	const context = (parameters: Record<string, unknown>) =>
		({
			getCurrentNodeParameter: (name: string) => parameters[name],
			getNode: () => ({ name: 'Host Cloud', type: 'n8n-nodes-host.hostCloud', typeVersion: 1, position: [0, 0], parameters: {}, id: 'x' }),
		}) as unknown as ILoadOptionsFunctions;

	test('list the graph’s nodes, a node’s value inputs, and its Load Image nodes', async () => {
		const graph = {
			...txt2img(),
			'10': { class_type: 'LoadImage', inputs: { image: 'cat.png' }, _meta: { title: 'Photo' } },
		};
		const workflow = JSON.stringify(graph);
		const nodes = await getWorkflowNodes.call(context({ workflow }));
		expect(nodes.map((node) => node.value)).toEqual(['3', '4', '5', '6', '7', '8', '9', '10']);
		expect(nodes.at(-1)).toEqual({ name: '10 · LoadImage (Photo)', value: '10' });
		const inputs = await getNodeInputs.call(context({ workflow, '&nodeId': '3' }));
		expect(inputs.map((input) => input.value)).toEqual(['seed', 'steps', 'cfg', 'sampler_name', 'scheduler', 'denoise']);
		expect(inputs[1]).toMatchObject({ name: 'steps', description: 'Now: 20' });
		expect(await getImageLoaderNodes.call(context({ workflow }))).toEqual([{ name: '10 · LoadImage (Photo)', value: '10' }]);
		expect(graphNodeChoices(graph as WorkflowGraph, (node) => node.class_type === 'SaveImage')).toEqual([
			{ name: '9 · SaveImage', value: '9' },
		]);
	});

	test('a workflow that cannot be read says why', async () => {
		await expect(getWorkflowNodes.call(context({ workflow: '{"3": {' }))).rejects.toThrow(
			/^Workflow is not valid JSON.*list the workflow's nodes here/,
		);
		await expect(getNodeInputs.call(context({ workflow: '={{ $json.graph }}', '&nodeId': '3' }))).rejects.toThrow(
			/comes from an expression/,
		);
	});
});
