/**
 * Defects the bad-input sweep (`bad-input-parameters.test.ts`) found, fixed: each value is refused
 * by the field's name, and nothing is sent for it (no request, no WebSocket, not even after the run).
 */
import { baseParameters, runOnce, sweepService, useSweepService } from './bad-input/sweep-target';
import { expr } from './bad-input/cases';

useSweepService();

describe('defects the sweep found, fixed', () => {
	const list = expr('["a", "b"]');
	test.each([
		[
			'hostRegistry',
			'publisher',
			'update',
			{ updateFields: { name: expr('{ "first": "Acme" }') } },
			'Name (in Update Fields) must be text',
		],
		['hostCloud', 'file', 'downloadOutput', { subfolder: list }, 'Subfolder must be text'],
		['hostCloud', 'file', 'getOutputUrl', { fileType: expr('["temp"]') }, 'Type must be text'],
		['hostCloud', 'file', 'uploadMask', { additionalFields: { originalSubfolder: list } }, 'Original Image Subfolder must be text'],
		['hostMedia', 'video', 'generateFromFrames', { framesInput: 'xml' }, 'Define Frames must be one of fields, json'],
	])('%s %s: %s refuses %j by name, sending nothing', async (type, resource, operation, change, message) => {
		const run = await runOnce(type, { ...baseParameters(type, resource, operation), ...change });
		expect({ message: run.error?.message, sent: run.sent.length, sockets: run.sockets }).toEqual({
			message: expect.stringContaining(message),
			sent: 0,
			sockets: 0,
		});
		sweepService().expectSilent(run.run!, `${type} ${resource}: ${operation} with ${JSON.stringify(change)}`);
	});

	test('nothing was sent for them after their runs either', async () => {
		expect(await sweepService().spokeLate()).toEqual([]);
	});
});
