/**
 * Which queued jobs a tool may see and cancel (nodes/HostCloud/helpers/ownership/): only entries
 * whose extra_data.n8n names the tool's workflow and this n8n install; anything else, whatever its
 * shape, is not its own (a tag without an install id included).
 */
import {
	cancellableByThisWorkflow,
	NOT_QUEUED,
	NOT_THIS_WORKFLOWS,
	ownQueue,
} from '../../../../../nodes/HostCloud/helpers/ownership/own-jobs';

const entry = (promptId: string, extraData: unknown) => [1, promptId, {}, extraData, ['9']];

const THIS = { workflowId: 'wf-1', instanceId: 'install-1' };
const queue = {
	queue_running: [
		entry('own-1', { n8n: { workflow_id: 'wf-1', instance_id: 'install-1' } }),
		entry('other-1', { n8n: { workflow_id: 'wf-2', instance_id: 'install-1' } }),
		entry('no-install', { n8n: { workflow_id: 'wf-1' } }),
		entry('other-install', { n8n: { workflow_id: 'wf-1', instance_id: 'install-2' } }),
	],
	queue_pending: [
		entry('own-2', { client_id: 'c', n8n: { workflow_id: 'wf-1', execution_id: '7', instance_id: 'install-1' } }),
		entry('untagged', { client_id: 'c' }),
		entry('flat', { n8n: 'wf-1' }),
		entry('inherited', JSON.parse('{"__proto__": {"n8n": {"workflow_id": "wf-1"}}}')),
		{ prompt_id: 'not-a-tuple', extra_data: { n8n: { workflow_id: 'wf-1' } } },
	],
};

test('ownQueue keeps this workflow’s entries and counts every other one', () => {
	const own = ownQueue(queue, THIS);
	expect(own.running.map((e) => (e as unknown[])[1])).toEqual(['own-1']);
	expect(own.pending.map((e) => (e as unknown[])[1])).toEqual(['own-2']);
	expect(own.leftOut).toBe(7);
});

test('a workflow without an id owns nothing; an answer of another shape lists nothing', () => {
	expect(ownQueue(queue, { instanceId: 'install-1' })).toEqual({ running: [], pending: [], leftOut: 9 });
	expect(ownQueue(queue, { workflowId: 'wf-1' })).toEqual({ running: [], pending: [], leftOut: 9 });
	expect(ownQueue('oops', THIS)).toEqual({ running: [], pending: [], leftOut: 0 });
	expect(ownQueue({ queue_running: 'x' }, THIS)).toEqual({ running: [], pending: [], leftOut: 0 });
});

test('cancellableByThisWorkflow allows this workflow’s queued ids and refuses every other, with the reason', () => {
	const ids = ['own-1', 'other-1', 'no-install', 'other-install', 'own-2', 'untagged', 'flat', 'inherited', 'not-a-tuple', 'finished'];
	expect(cancellableByThisWorkflow(queue, ids, THIS)).toEqual({
		allowed: ['own-1', 'own-2'],
		refused: [
			{ prompt_id: 'other-1', reason: NOT_THIS_WORKFLOWS },
			{ prompt_id: 'no-install', reason: NOT_THIS_WORKFLOWS },
			{ prompt_id: 'other-install', reason: NOT_THIS_WORKFLOWS },
			{ prompt_id: 'untagged', reason: NOT_THIS_WORKFLOWS },
			{ prompt_id: 'flat', reason: NOT_THIS_WORKFLOWS },
			{ prompt_id: 'inherited', reason: NOT_THIS_WORKFLOWS },
			{ prompt_id: 'not-a-tuple', reason: NOT_QUEUED },
			{ prompt_id: 'finished', reason: NOT_QUEUED },
		],
	});
	expect(cancellableByThisWorkflow(queue, ['own-1'], { instanceId: 'install-1' })).toEqual({
		allowed: [],
		refused: [{ prompt_id: 'own-1', reason: NOT_THIS_WORKFLOWS }],
	});
});
