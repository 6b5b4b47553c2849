/**
 * Host Task Trigger keeps the notification as it came in its item (`body`), so a result address
 * that is not an http(s) web address is refused wherever the notification names it: not only in
 * the list the task's fields are read from, but beside it (the fields of a body whose task is in
 * `data`) and as a single value instead of a list. Nothing starts, and no item carries it.
 */
import { EngineHarness } from '../../support/engine';

const harness = new EngineHarness();
const trigger = () => harness.buildWorkflow({ nodes: [{ name: 'Trigger', type: 'hostTaskTrigger', parameters: {} }] });

const JS = 'javascript:alert(document.cookie)//.png';

describe('a result address that is not a web address is refused wherever it is', () => {
	it.each([
		['beside the task read from `data`', { generated: [JS], data: { task_id: 't1', status: 'COMPLETED', generated: ['https://s/a.png'] } }],
		['as one value instead of a list', { task_id: 't2', status: 'COMPLETED', generated: JS }],
		['a video creation given as one object', { task_id: 't3', state: 'success', creations: { url: JS } }],
		['a cover beside `data`', { creations: [{ url: 'https://s/v.mp4', cover_url: JS }], data: { task_id: 't4', state: 'success' } }],
	])('%s: 400, and nothing starts', async (_where, body) => {
		const call = await harness.callWebhook(trigger(), 'Trigger', { body });
		expect(call.status).toBe(400);
		expect(call.body).toEqual({
			error: 'invalid_notification',
			message: "1 of the notification's result addresses is not an http(s) web address",
		});
		expect(call.result.workflowData).toBeUndefined();
	});

	it('web addresses in both places, or one as a single value, start the workflow as before', async () => {
		const body = { generated: 'https://s/b.png', data: { task_id: 't5', status: 'COMPLETED', generated: ['https://s/a.png'] } };
		const call = await harness.callWebhook(trigger(), 'Trigger', { body });
		expect(call.status).toBe(200);
		expect(call.result.workflowData?.[0]?.[0]?.json).toMatchObject({ task_id: 't5', generated: ['https://s/a.png'], body });
	});
});
