/**
 * Partner nodes in an API-format graph, spotted by class.
 */
import { hasKnownPartnerNodes, hasPartnerNodes } from '../../../../../nodes/HostCloud/helpers/graph/class-definitions';
import type { WorkflowGraph } from '../../../../../nodes/HostCloud/helpers/graph/workflow-graph';

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
