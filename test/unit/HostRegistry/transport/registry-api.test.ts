/** The registry's paths. */
import { registryPath } from '../../../../nodes/HostRegistry/transport/registry-api';

describe('ids and paths', () => {
	it('encodes every path segment', () => {
		expect(registryPath('publishers', 'acme', 'nodes', 'a.b_c', 'versions', '1.0.0+build')).toBe(
			'/publishers/acme/nodes/a.b_c/versions/1.0.0%2Bbuild',
		);
	});
});
