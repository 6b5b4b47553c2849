/**
 * What the parts of the bad-input sweep share (one test file each, so that they run side by side):
 * the engine harness (one per test file, as Jest loads this module once for each), the secrets of
 * the credentials, the sweep's loopback service, started before a file's tests and closed after
 * (`useSweepService`), and the operations the nodes' descriptions list, each run once and bounded
 * on its own address there (`runOnce`).
 */
import type { ServerResponse } from 'node:http';

import type { INodeTypeDescription } from 'n8n-workflow';

import { EngineHarness } from '../../../support/engine';
import { sendJson, type SeenRequest } from '../../../support/hostile-service';
import type { HarnessItem } from '../../../support/items-node';
import { operationsOf, type Parameters } from '../../../support/node-parameters';
import { ITEM, nodeDescription, runSwept, sweepBase, type SweepRun, type SweepSecrets } from '../../../support/sweep-operations';
import { startSweepService, type Answer, type SweepService } from '../../../support/sweep-service';

export const harness = new EngineHarness();

export const SECRETS: SweepSecrets = {
	cloudKey: 'sweep-cloud-key-7f3a',
	accessToken: 'sweep-access-token-91c2',
	publishingToken: 'sweep-publishing-token-5d0e',
	repohostToken: 'sweep-repohost-token-c48b',
};

/**
 * How the service answers a parameter sweep: it refuses every request (a run ends at its first
 * one), and a job's status says it failed (an operation that waits for one ends at its first look).
 */
const refuseAll = (req: SeenRequest, res: ServerResponse): void =>
	/^\/api\/job\/[^/]+\/status/.test(req.url) ? sendJson(res, 200, { status: 'failed' }) : sendJson(res, 400, { message: 'sweep: refused' });

let service: SweepService | undefined;

/** Starts the sweep's service before this file's tests and closes it after them. */
export function useSweepService(): void {
	beforeAll(async () => {
		service = await startSweepService(refuseAll);
	});
	afterAll(async () => await service?.close());
}

/** The sweep's service (started by `useSweepService`). */
export function sweepService(): SweepService {
	if (!service) throw new Error('the sweep service is not started: call useSweepService() in the test file');
	return service;
}

export const node = (type: string): INodeTypeDescription => nodeDescription(harness, type);
export const baseParameters = (type: string, resource: string, operation: string): Parameters =>
	sweepBase(harness, type, resource, operation);

/** Every [node type, resource, operation] the nodes' descriptions list. */
export const OPERATIONS = ['hostCloud', 'hostMedia', 'hostRegistry', 'hostTaskTrigger'].flatMap((type) =>
	operationsOf(node(type)).map(([resource, operation]): [string, string, string] => [type, resource, operation]),
);

/** The operations a node run executes (Host Task Trigger has none: its parameters are read when a notification arrives). */
export const EXECUTABLE = OPERATIONS.filter(([type]) => node(type).properties.some((p) => p.name === 'resource'));

/** One bounded run of `type` with `parameters` on its own address of the service, answered by `answer` (default: refused). */
export const runOnce = (type: string, parameters: Parameters, item: HarnessItem = ITEM, answer?: Answer): Promise<SweepRun> =>
	runSwept(harness, { service: sweepService(), secrets: SECRETS }, { type, parameters, item, answer });
