/** Host Registry's semantic versions and publisher ids. */
import type { INode } from 'n8n-workflow';

import { isSemanticVersion, publisherId, semanticVersion } from '../../../../nodes/HostRegistry/helpers/identifiers';
import { failure } from '../../../support/thrown';

const context = { getNode: () => ({ name: 'Host Registry' }) as INode };

describe('semantic versions', () => {
	it.each([
		'0.0.0',
		'1.2.3',
		'10.20.30',
		'1.0.0-alpha',
		'1.0.0-alpha.1',
		'1.0.0-0.3.7',
		'1.0.0-x.7.z.92',
		'1.0.0+20130313144700',
		'1.0.0-beta+exp.sha.5114f85',
	])('accepts %s', (version) => expect(isSemanticVersion(version)).toBe(true));

	it.each(['', '1', '1.2', '1.2.3.4', 'v1.2.3', '01.2.3', '1.02.3', '1.2.03', '1.2.3-', '1.2.3-01', '1.2.3+', ' 1.2.3', 'latest', '1.2.x'])(
		'refuses %j',
		(version) => expect(isSemanticVersion(version)).toBe(false),
	);

	it('names the field and helps with a leading "v"', () => {
		const error = failure(() => semanticVersion(context, 0, 'Version', 'v2.0.0'));
		expect(error.message).toBe('Version must be a semantic version such as 1.2.3 (got "v2.0.0")');
		expect(error.description).toBe('Remove the leading "v": use "2.0.0".');
		expect(semanticVersion(context, 0, 'Version', ' 2.0.0 ')).toBe('2.0.0');
	});
});

describe('ids and paths', () => {
	it('takes a lower-case publisher id and refuses others with the lower-case form', () => {
		expect(publisherId(context, 0, 'Publisher', 'acme-nodes')).toBe('acme-nodes');
		expect(failure(() => publisherId(context, 0, 'Publisher', 'AcmeNodes')).description).toContain('"acmenodes"');
		expect(failure(() => publisherId(context, 0, 'Publisher', 'acme nodes')).message).toMatch(/^Publisher must not contain spaces/);
		expect(failure(() => publisherId(context, 0, 'Publisher', '')).message).toBe('Publisher is required');
	});
});
