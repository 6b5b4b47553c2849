/**
 * A refused workflow in the user's terms, from what the real upstream server answered
 * (test/fixtures/real-server/refused.*.json): each refused node with its id and class, the input,
 * the value given and what the server allows, long lists cut with a count, and nothing of the
 * server's traceback.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { refusedWorkflowLines } from '../../../../nodes/HostCloud/transport/cloud-service';
import { serviceMessage as sharedServiceMessage } from '../../../../nodes/shared/transport/request-errors';

/** An error body's words as Host Cloud's transport reads them. */
const serviceMessage = (body: unknown) => sharedServiceMessage(body, refusedWorkflowLines);

const refusal = (name: string) =>
	JSON.parse(readFileSync(join(__dirname, '../../../fixtures/real-server', `refused.${name}.json`), 'utf8')).answers[0].body;

test.each([
	[
		'value-not-in-list-and-missing-input',
		"Prompt outputs failed validation: Node 4 (CheckpointLoaderSimple): input ckpt_name: 'no-such-model.safetensors' is not in the list (allowed: 'cardosAnime_v10.safetensors', 'flux1-schnell-fp8.safetensors', 'hunyuan_dit_1.2.safetensors', 'sd21-unclip-h.ckpt', 'sd3.5_medium.safetensors' and 7 more); Node 5 (EmptyLatentImage): required input batch_size is missing",
	],
	['value-above-max', 'Prompt outputs failed validation: Node 1 (EmptyImage): input width: 99999999 is too large (allowed: 1 to 16384)'],
	['value-below-min', 'Prompt outputs failed validation: Node 1 (EmptyImage): input height: 0 is too small (allowed: 1 to 16384)'],
	[
		'value-of-wrong-type',
		"Prompt outputs failed validation: Node 1 (EmptyImage): input width: 'wide' is not valid (failed to convert an input value to a int value: invalid literal for int() with base 10: 'wide')",
	],
	[
		'link-of-wrong-type',
		'Prompt outputs failed validation: Node 2 (SaveImage): input images is linked to a LATENT output, but takes IMAGE',
	],
	[
		'link-to-missing-node',
		"Prompt outputs failed validation: Node 2 (SaveImage): the server could not check it (KeyError: '7'); check its links and inputs",
	],
	['image-not-uploaded', 'Prompt outputs failed validation: Node 1 (LoadImage): input image: Invalid image file: no-such-upload.png'],
	['unknown-class', "Cannot execute because node NoSuchNode does not exist: Node ID '#1'"],
	['no-outputs', 'Prompt has no outputs'],
	['no-prompt', 'No prompt provided'],
])('%s', (name, words) => {
	const body = refusal(name);
	const message = serviceMessage(body)!;
	expect(message).toBe(words);
	// The server's traceback (its file paths) never reaches the user.
	expect(message).not.toMatch(/File "|execution\.py/);
});

test('many refused nodes: the first eight, and a count of the rest', () => {
	const nodeErrors = Object.fromEntries(
		Array.from({ length: 11 }, (_, i) => [
			String(i + 1),
			{
				class_type: 'EmptyImage',
				errors: [
					{ type: 'required_input_missing', message: 'Required input is missing', details: 'width', extra_info: { input_name: 'width' } },
				],
			},
		]),
	);
	const message = serviceMessage({
		error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation' },
		node_errors: nodeErrors,
	})!;
	expect(message.match(/required input width is missing/g)).toHaveLength(8);
	expect(message.endsWith('; and 3 more nodes')).toBe(true);
});

test('a long value is cut, and names objects carry are read as any other name', () => {
	const message = serviceMessage({
		error: { message: 'Prompt outputs failed validation' },
		// As JSON.parse reads it from an answer: an own key named __proto__.
		node_errors: JSON.parse(
			JSON.stringify({
				proto: {
					class_type: 'X',
					errors: [
						{
							type: 'value_not_in_list',
							message: 'Value not in list',
							extra_info: { input_name: 'constructor', received_value: 'a'.repeat(500), input_config: [[]] },
						},
					],
				},
			}).replace('"proto"', '"__proto__"'),
		),
	})!;
	expect(message).toContain(
		`Node __proto__ (X): input constructor: '${'a'.repeat(79)}… is not in the list (the server lists no values for it)`,
	);
});
