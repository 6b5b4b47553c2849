/**
 * A Host Cloud suite whose credential points at the loopback fault proxy in front of the
 * simulator (the lost-submit suites): call it inside a describe; it starts the proxy before the
 * suite, puts the proxy's faults, hooks and the request time limit back after each test, and
 * builds Host Cloud nodes that use that credential.
 */
import { REQUEST_TIME_LIMIT } from '../../nodes/shared/transport/transport';
import type { WorkflowNodeSpec } from './engine';
import { cloudForSuite, type CloudSetup } from './cloud';
import { hostCloudCredential } from './cloud-credential';
import { startFaultProxy, type Exchange, type FaultProxy, type Hooked } from './fault-proxy';

/** Whether the proxied exchange is a v1 submit. */
export const isSubmit = (exchange: Exchange) => exchange.method === 'POST' && exchange.path === '/api/prompt';
/** The n8n tag of a submit's body. */
export const tagOf = (body: string) => JSON.parse(body).extra_data.n8n as { item_index: number; request_id: string; execution_id: string };
/** A queue with no job in it, as an answer's body. */
export const EMPTY_QUEUE = JSON.stringify({ queue_running: [], queue_pending: [] });
/** A hook that shows every queue read empty: the cloud lists no ended jobs, and this one never shows the job at all. */
export const hideFromQueue = (exchange: Exchange): Hooked | undefined =>
	exchange.method === 'GET' && exchange.path === '/api/queue' ? { rewrite: () => EMPTY_QUEUE } : undefined;
/** Wait options for a short job: polls 50 ms apart, Max Wait one minute. */
export const quickWait = (more: Record<string, unknown> = {}) => ({
	pollIntervalSeconds: 0.05,
	silenceSeconds: 15,
	maxWaitMinutes: 1,
	...more,
});

type NodeToRun = Omit<WorkflowNodeSpec, 'name'> & { name?: string };

export interface CloudBehindProxy {
	cloud: CloudSetup;
	proxy(): FaultProxy;
	/** A Host Cloud node with these parameters, through the proxy (runNode names it "Node"). */
	node(parameters: Record<string, unknown>, more?: Partial<WorkflowNodeSpec>): NodeToRun;
}

export function cloudBehindFaultProxy(flavour: 'cloud' | 'self-hosted'): CloudBehindProxy {
	const cloud = cloudForSuite({ flavour });
	let proxy: FaultProxy | undefined;
	let throughProxy = '';

	beforeAll(async () => {
		const { sim } = cloud;
		proxy = await startFaultProxy({ api: sim.baseUrl, registry: sim.registryUrl, storage: sim.storageUrl });
		throughProxy = cloud.harness.addCredential(
			'hostCloudApi',
			hostCloudCredential({ flavour, baseUrl: proxy.urls.api, apiKey: sim.apiKey, proxy: sim.options.proxyAuth }),
		);
	});

	afterEach(() => {
		proxy?.release();
		proxy?.arm(undefined);
		REQUEST_TIME_LIMIT.ms = 60_000;
	});

	afterAll(async () => {
		await proxy?.close();
	});

	return {
		cloud,
		proxy: () => proxy!,
		node: (parameters, more = {}) => ({
			type: 'hostCloud',
			parameters: parameters as WorkflowNodeSpec['parameters'],
			credentials: { hostCloudApi: throughProxy },
			...more,
		}),
	};
}
