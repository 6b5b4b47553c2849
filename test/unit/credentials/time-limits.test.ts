/**
 * The bounds the docs state (docs/security.md, "Nothing waits forever"): 60 s without a byte ends
 * a request, a read with its retries ends within 3 minutes, each credential's Time Limit (Seconds)
 * raises both and can only raise them, and a credential test is n8n's own request, which n8n ends
 * after 5 minutes. The engine tests (stalled-answers, silent-service) show the transport keeps them.
 */
import { readFileSync } from 'node:fs';

import type { INodeProperties } from 'n8n-workflow';

import { HostApi } from '../../../credentials/HostApi.credentials';
import { HostCloudApi } from '../../../credentials/HostCloudApi.credentials';
import { DEFAULT_TIME_LIMIT_SECONDS, REQUEST_TIME_LIMIT } from '../../../credentials/time-limit';
import { timeLimitsFor } from '../../../nodes/shared/transport/request-limits';

const credentials = [new HostCloudApi(), new HostApi()];

test('every request ends after 60 s without a byte; a read with its retries within 3 minutes', () => {
	expect(REQUEST_TIME_LIMIT).toEqual({ ms: 60_000, readMs: 180_000 });
	expect(DEFAULT_TIME_LIMIT_SECONDS).toBe(60);
	expect(timeLimitsFor(undefined)).toEqual({ idleMs: 60_000, readMs: 180_000 });
});

test.each(credentials.map((credential) => [credential.displayName, credential] as const))(
	'%s has a Time Limit (Seconds) setting, 60 to 600, 60 by default',
	(_name, credential) => {
		const setting = credential.properties.find((property: INodeProperties) => property.name === 'timeLimitSeconds');
		expect(setting).toMatchObject({
			displayName: 'Time Limit (Seconds)',
			type: 'number',
			default: 60,
			typeOptions: { minValue: 60, maxValue: 600 },
		});
	},
);

test('the Time Limit raises both limits alike, and never lowers them', () => {
	expect(timeLimitsFor(120)).toEqual({ idleMs: 120_000, readMs: 360_000 });
	expect(timeLimitsFor(600)).toEqual({ idleMs: 600_000, readMs: 1_800_000 });
	for (const given of [60, 30, 0, -5, 'soon', null, Number.NaN]) expect(timeLimitsFor(given)).toEqual({ idleMs: 60_000, readMs: 180_000 });
	// A call's own timeout only shortens the idle limit.
	expect(timeLimitsFor(120, 5_000)).toEqual({ idleMs: 5_000, readMs: 360_000 });
	expect(timeLimitsFor(undefined, 999_999)).toEqual({ idleMs: 60_000, readMs: 180_000 });
});

test("a credential test sets no time limit of its own: n8n's RoutingNode ends it after 5 minutes (300 000 ms)", () => {
	for (const credential of credentials) expect(credential.test.request).not.toHaveProperty('timeout');
	const routingNode = readFileSync(require.resolve('n8n-core/dist/execution-engine/routing-node.js'), 'utf8');
	expect(routingNode).toMatch(/else \{\s*itemContext\[itemIndex\]\.requestData\.options\.timeout = 300_000;\s*\}/);
});
