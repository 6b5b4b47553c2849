/** Host Registry's request bodies, built from the fields of a collection. */
import type { IDataObject, INode } from 'n8n-workflow';

import { bodyFromFields } from '../../../../nodes/HostRegistry/helpers/field-collections';
import {
	DEPRECATED_FIELD,
	MEMBERS_FIELD,
	NODE_FIELDS,
	PUBLISHER_UPDATE_FIELDS,
} from '../../../../nodes/HostRegistry/actions/common.descriptions';
import { failure } from '../../../support/thrown';

const context = { getNode: () => ({ name: 'Host Registry' }) as INode };

describe('request bodies from collections', () => {
	it('uses the spec names and types, and skips unknown options', () => {
		// Node fields, plus one field of a version and one of a publisher.
		const body = bodyFromFields(context, 0, 'Node Fields', [...NODE_FIELDS, DEPRECATED_FIELD, MEMBERS_FIELD], {
			bannerUrl: 'https://x.example/b.png',
			preemptedNodeNames: 'A, B',
			supportedHostuiFrontendVersion: '>=1',
			deprecated: 'false',
			somethingElse: 'ignored',
			icon: '',
			members: { member: [{ role: 'admin', userEmail: 'a@x.example' }] },
		} as IDataObject);
		expect(body).toEqual({
			banner_url: 'https://x.example/b.png',
			preempted_host_node_names: ['A', 'B'],
			supported_hostui_frontend_version: '>=1',
			deprecated: false,
			icon: '',
			members: [{ role: 'admin', user: { email: 'a@x.example' } }],
		});
	});

	it('says which collection a bad field is in', () => {
		expect(failure(() => bodyFromFields(context, 0, 'Update Fields', PUBLISHER_UPDATE_FIELDS, { name: ' ' })).message).toBe(
			'Name (in Update Fields) is required',
		);
		expect(failure(() => bodyFromFields(context, 0, 'Update Fields', PUBLISHER_UPDATE_FIELDS, { status: 'Banned' })).message).toBe(
			'Status (in Update Fields) must be one of PublisherStatusActive, PublisherStatusBanned (got "Banned")',
		);
	});
});
