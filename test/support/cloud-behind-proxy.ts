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
import { startFaultProxy, type FaultProxy } from './fault-proxy';

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
