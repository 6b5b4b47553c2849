/**
 * The Host Task Trigger's subtitle on the canvas names the Events option it is set to: "Succeeded
 * Tasks Only" read "Every status change" (seen on the video-done-mail-mqtt recipe's canvas).
 */
import { Workflow, type INode, type INodeTypes } from 'n8n-workflow';

import { HostTaskTrigger } from '../../../nodes/HostTaskTrigger/HostTaskTrigger.node';

const trigger = new HostTaskTrigger();
const nodeTypes = { getByName: () => trigger, getByNameAndVersion: () => trigger, getKnownTypes: () => ({}) } as unknown as INodeTypes;

/** The subtitle as n8n's expression engine resolves it for a node with these parameters. */
function subtitleFor(events: string): unknown {
	const node: INode = {
		id: '1',
		name: 'Host Task Trigger',
		type: 'n8n-nodes-host.hostTaskTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: { events },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	return workflow.expression.getSimpleParameterValue(node, trigger.description.subtitle!, 'internal', {});
}

describe('Host Task Trigger subtitle', () => {
	it.each([
		['final', 'Finished tasks'],
		['succeeded', 'Succeeded tasks'],
		['all', 'Every status change'],
	])('Events "%s" reads "%s"', (events, words) => {
		expect(subtitleFor(events)).toBe(words);
	});
});
