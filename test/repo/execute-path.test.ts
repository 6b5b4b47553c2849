/**
 * What docs/architecture.md says of Execute's path to the submit request is measured: Host Cloud's
 * Execute runs one item through n8n's engine against the simulator, the stack is taken where the
 * transport is asked to send `POST /api/prompt`, and the package's frames on it (async ones included,
 * from the node's execute() down to the transport) are the doc's block `measured:execute-to-submit`.
 * A change of that path which does not update the doc fails here, printing the path measured.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { cloudForSuite, txt2img } from '../support/cloud';
import { pathText, pathToSubmit, type Frame } from './support/execute-path';
import { ROOT } from './support/folder-blocks';

const cloud = cloudForSuite();

const documented = () =>
	/<!-- measured:execute-to-submit -->\n([\s\S]*?)<!-- \/measured -->/.exec(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'))?.[1];

describe("Execute's path to the submit request", () => {
	let path: Frame[] = [];
	beforeAll(async () => {
		path = await pathToSubmit(async () => {
			const result = await cloud.harness.runNode(
				{
					type: 'hostCloud',
					parameters: { resource: 'workflow', operation: 'execute', workflow: JSON.stringify(txt2img()), downloadFiles: false },
					credentials: { hostCloudApi: cloud.credential },
				},
				[{ json: {} }],
			);
			expect(result.status).toBe('success');
		});
	});

	test("starts at the node's execute() and ends in the transport, with one submit sent", () => {
		expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(1);
		expect({ first: path[0], last: path.at(-1)?.file }).toEqual({
			first: { name: expect.stringMatching(/(^|\.)execute$/), file: 'nodes/HostCloud/HostCloud.node.ts' },
			last: 'nodes/shared/transport/transport.ts',
		});
	});

	test('is what docs/architecture.md says, frame by frame and file by file', () => {
		const measured = pathText(path);
		const doc = documented();
		// The whole path measured, to paste into the block (a diff would show only the lines that differ).
		if (doc !== measured)
			throw new Error(
				`docs/architecture.md's block measured:execute-to-submit is not the path measured.\nMeasured:\n${measured}\nThe doc says:\n${doc ?? '(no block)\n'}`,
			);
		expect(doc).toBe(measured);
	});
});
