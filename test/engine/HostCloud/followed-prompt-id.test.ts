/**
 * A Retry On Fail follows the job an earlier try of an item left running; a service (or a caching
 * proxy in front of it) that answers another item's new submit with that job's prompt_id must not
 * hand one job to two items: both fail, naming it, as two submits answered the same prompt_id do
 * (duplicate-prompt-id.test.ts). Before, the second item returned the followed job's outputs as its
 * own (one after the other), or took the followed job over so the first item's wait never ended
 * and the run hung (at once). The followed job, which no item waits for then, is cancelled: the
 * node started it. Both flavours of the simulator, behind the loopback fault proxy.
 */
import * as cloudApi from '../../../nodes/HostCloud/transport/cloud-api';
import { cloudBehindFaultProxy } from '../../support/cloud-behind-proxy';
import type { FaultProxy } from '../../support/fault-proxy';
import { executeTxt2img } from '../../support/cloud';

/** Item 0's first job is the followed one; item 1's submit number `lyingSubmit` is answered with its prompt_id. */
function answerItemOneWithFollowed(proxy: FaultProxy, lyingSubmit: number, onItemZero: () => void = () => undefined) {
	const seen = { followed: undefined as string | undefined, itemOneSubmits: 0 };
	proxy.hook = (exchange, body) => {
		if (exchange.method !== 'POST' || exchange.path !== '/api/prompt') return undefined;
		const item = JSON.parse(body).extra_data.n8n.item_index as number;
		const lies = item === 1 && ++seen.itemOneSubmits === lyingSubmit;
		return {
			rewrite: (text) => {
				const id = JSON.parse(text).prompt_id as string;
				if (item === 0) {
					seen.followed ??= id;
					onItemZero();
				}
				return lies && seen.followed ? text.split(id).join(seen.followed) : text;
			},
		};
	};
	return seen;
}

const sharedMessage = (promptId: string | undefined) =>
	`The service answered prompt_id ${promptId} for two different submits (items 0 and 1), so their results cannot be told apart; neither item uses them`;

/** Execute with Max Wait `maxWaitMinutes` leaving the job running, retried once 1 s later. */
const retried = (maxConcurrentJobs: number, maxWaitMinutes: number) =>
	[
		executeTxt2img({
			downloadFiles: false,
			waitOptions: { pollIntervalSeconds: 0.05, silenceSeconds: 15, maxWaitMinutes, onTimeout: 'keep' },
			additionalFields: { maxConcurrentJobs },
		}),
		{ retryOnFail: true, maxTries: 2, waitBetweenTries: 1000 },
	] as const;

describe.each([{ flavour: 'cloud' as const }, { flavour: 'self-hosted' as const }])('on $flavour', ({ flavour }) => {
	const { cloud, node, proxy } = cloudBehindFaultProxy(flavour);
	const jobs = () => [...cloud.sim.cloud.jobs.values()];
	afterEach(() => jest.restoreAllMocks());

	test('Max Concurrent Jobs 1: item 1’s submit, answered with the job item 0 followed (now ended), fails naming it', async () => {
		// Item 0's first job (seven nodes of 900 ms) outlasts Max Wait (3 s) and the retry's wait (1 s) with room
		// for a busy machine (at 600 ms it had about 0.2 s, and the case failed under load); later jobs are quick.
		cloud.sim.options.nodeMs = 900;
		const seen = answerItemOneWithFollowed(proxy(), 1, () => (cloud.sim.options.nodeMs = 20));
		const [parameters, tries] = retried(1, 0.05);
		const result = await cloud.harness.runNode(node(parameters, tries), [{ json: {} }, { json: {} }]);

		// Item 1 was submitted once, in the second try (the first try's failure refused it).
		expect(seen.itemOneSubmits).toBe(1);
		// Not the followed job's outputs for item 1 too.
		expect(result.items).toEqual([]);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(sharedMessage(seen.followed));
	}, 60_000);

	test('Max Concurrent Jobs 2: item 1’s submit, answered with the job item 0 follows (still running), fails both: the run ends, the job is cancelled', async () => {
		// Item 0's first job (seven nodes of 2 s) must still run when the retry answers item 1 with it: at
		// 1 s a node it ended about 1.2 s after the retry began, and the case failed under load.
		cloud.sim.options.nodeMs = 2000;
		const seen = answerItemOneWithFollowed(proxy(), 2);
		// Item 1's first submit goes later, so item 0 reaches Max Wait first and the node cancels item 1's first job.
		const original = cloudApi.submitPrompt;
		let calls = 0;
		jest.spyOn(cloudApi, 'submitPrompt').mockImplementation(async (...args) => {
			if (calls++ === 1) await new Promise((resolve) => setTimeout(resolve, 1500));
			return await original(...args);
		});
		const [parameters, tries] = retried(2, 0.08);
		const result = await cloud.harness.runNode(node(parameters, tries), [{ json: {} }, { json: {} }]);

		expect(seen.itemOneSubmits).toBe(2);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(sharedMessage(seen.followed));
		// The followed job was the node's own (its first try's): no item waits for it, so it is not left running.
		expect(
			jobs()
				.filter((job) => ['pending', 'in_progress'].includes(job.status))
				.map((job) => job.promptId),
		).toEqual([]);
		expect(cloud.sim.cloud.jobs.get(seen.followed!)!.status).toBe('cancelled');
	}, 40_000);
});
