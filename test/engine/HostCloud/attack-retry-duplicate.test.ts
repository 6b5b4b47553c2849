/**
 * A Retry On Fail follows an earlier try's job; a service (or a caching proxy) that then answers
 * another item's new submit with that job's prompt_id must not hand one job's outputs to two items.
 */
import { cloudBehindFaultProxy } from '../../support/cloud-behind-proxy';
import { executeTxt2img } from '../../support/cloud';

describe.each([{ flavour: 'cloud' as const }, { flavour: 'self-hosted' as const }])('on $flavour', ({ flavour }) => {
	const { cloud, node, proxy } = cloudBehindFaultProxy(flavour);

	test('an item’s new submit answered with the prompt_id of the job another item follows: no item gets the other’s job', async () => {
		cloud.sim.options.nodeMs = 600;
		let followed: string | undefined;
		let itemOneSubmits = 0;
		proxy().hook = (exchange, body) => {
			if (exchange.method !== 'POST' || exchange.path !== '/api/prompt') return undefined;
			const item = JSON.parse(body).extra_data.n8n.item_index as number;
			if (item === 1) itemOneSubmits++;
			return {
				rewrite: (text) => {
					const id = JSON.parse(text).prompt_id as string;
					if (item === 0) {
						followed ??= id;
						// Later jobs are quick: only the first try's job of item 0 outlasts Max Wait.
						cloud.sim.options.nodeMs = 20;
					}
					return item === 1 && followed ? text.split(id).join(followed) : text;
				},
			};
		};
		const parameters = executeTxt2img({
			downloadFiles: false,
			waitOptions: { pollIntervalSeconds: 0.05, silenceSeconds: 15, maxWaitMinutes: 0.05, onTimeout: 'keep' },
			additionalFields: { maxConcurrentJobs: 1 },
		});
		const result = await cloud.harness.runNode(node(parameters, { retryOnFail: true, maxTries: 2, waitBetweenTries: 1000 }), [
			{ json: {} },
			{ json: {} },
		]);

		// Item 0's first job was followed by its second try; item 1 was submitted once, in the second try.
		expect(itemOneSubmits).toBe(1);
		// Not the followed job's outputs for item 1 too: the item fails, naming the prompt_id and both items.
		expect(result.items.map((item) => item.json.prompt_id)).toEqual([]);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(
			`The service answered prompt_id ${followed} for two different submits (items 0 and 1), so their results cannot be told apart; neither item uses them`,
		);
	}, 60_000);
});
