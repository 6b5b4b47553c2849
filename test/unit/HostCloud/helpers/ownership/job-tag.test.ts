/** The n8n tag of a queued job (extra_data.n8n): read only from an own object with a non-empty workflow_id. */
import { taggedWorkflowId } from '../../../../../nodes/HostCloud/helpers/ownership/job-tag';

test('a tag is read only from an own n8n object with a non-empty workflow_id', () => {
	expect(taggedWorkflowId({ n8n: { workflow_id: 'wf-1' } })).toBe('wf-1');
	for (const extra of [undefined, null, [], 'wf-1', { n8n: 'wf-1' }, { n8n: { workflow_id: '' } }, { n8n: { workflow_id: 7 } }]) {
		expect(taggedWorkflowId(extra)).toBeUndefined();
	}
	expect(taggedWorkflowId(Object.create({ n8n: { workflow_id: 'wf-1' } }))).toBeUndefined();
});
