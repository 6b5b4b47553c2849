/**
 * Answers about another job (DESIGN.md "Answers are about something"), through n8n's engine
 * against both flavours of the simulator behind the loopback fault proxy, whose test hook rewrites
 * chosen answers: a cloud job record whose `id` or `prompt_id` names another job gives neither
 * outputs nor failure words (Wait for Completion reads it again, then fails naming both ids; Get
 * Status fails naming both); a self-hosted history answer keyed only by another job is no "not in
 * history" (Get History and Delete History fail naming both, and nothing is deleted), while an
 * empty answer still is; Wait for Completion asks again, and its Max Wait names both.
 */
import type { Exchange, Hooked } from '../../support/fault-proxy';
import { cloudBehindFaultProxy } from '../../support/cloud-behind-proxy';
import { txt2img, waitUntil } from '../../support/cloud';

const OTHER = '0f0f0f0f-1111-4222-8333-444444444444';
const quickWait = { pollIntervalSeconds: 0.05, silenceSeconds: 15, maxWaitMinutes: 1 };

/** A hook that rewrites the JSON answer to GET `path` by `change`, for its first `times` answers (all: Infinity). */
function retag(path: string, change: (answer: Record<string, unknown>) => unknown, times = Number.POSITIVE_INFINITY) {
	let done = 0;
	return (exchange: Exchange): Hooked | undefined => {
		if (exchange.method !== 'GET' || exchange.path !== path || done >= times) return undefined;
		done++;
		return { rewrite: (text) => JSON.stringify(change(JSON.parse(text) as Record<string, unknown>)) };
	};
}

describe('on the cloud', () => {
	const { cloud, node, proxy } = cloudBehindFaultProxy('cloud');
	const reads = (promptId: string) => proxy().log.filter((e) => e.method === 'GET' && e.path === `/api/jobs/${promptId}`).length;

	/** A job that has completed on the cloud. */
	async function finishedJob(): Promise<string> {
		const submitted = await cloud.harness.runNode(node({ resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()) }));
		const promptId = submitted.items[0]!.json.prompt_id as string;
		await waitUntil(() => cloud.sim.cloud.jobs.get(promptId)?.status === 'completed');
		return promptId;
	}

	const waitFor = (promptId: string) =>
		cloud.harness.runNode(
			node({ resource: 'workflow', operation: 'waitForCompletion', promptId, waitOptions: quickWait }, { continueOnFail: true }),
		);

	test.each(['id', 'prompt_id'])(
		'Wait for Completion: a record whose %s names another job, every time, fails naming both',
		async (field) => {
			const promptId = await finishedJob();
			proxy().hook = retag(`/api/jobs/${promptId}`, (record) => ({ ...record, [field]: OTHER }));
			const result = await waitFor(promptId);
			const json = result.items[0]!.json;
			expect(json.error).toBe(`The answer to reading job ${promptId} is about another job (${OTHER}), so nothing was taken from it`);
			expect(json.images).toBeUndefined();
			// Read again before giving up: the record may be this job's at the next read.
			expect(reads(promptId)).toBeGreaterThan(1);
		},
		30_000,
	);

	test('Wait for Completion: a record about another job once, then this job’s: the outputs of the second read', async () => {
		const promptId = await finishedJob();
		proxy().hook = retag(`/api/jobs/${promptId}`, (record) => ({ ...record, id: OTHER }), 1);
		const result = await waitFor(promptId);
		expect(result.items[0]!.json).toMatchObject({ prompt_id: promptId, status: 'completed', outputs_from_job_record: true });
		expect(reads(promptId)).toBe(2);
	}, 30_000);

	test('Get Status with Include Output Files: a record about another job fails naming both', async () => {
		const promptId = await finishedJob();
		proxy().hook = retag(`/api/jobs/${promptId}`, (record) => ({ ...record, prompt_id: OTHER }));
		const result = await cloud.harness.runNode(
			node(
				{ resource: 'workflow', operation: 'getStatus', promptId, additionalFields: { includeOutputs: true } },
				{ continueOnFail: true },
			),
		);
		expect(result.items[0]!.json.error).toBe(
			`The answer to reading job ${promptId} is about another job (${OTHER}), so nothing was taken from it`,
		);
		expect(result.items[0]!.json.images).toBeUndefined();
	}, 30_000);
});

describe('on a self-hosted server', () => {
	const { cloud, node, proxy } = cloudBehindFaultProxy('self-hosted');
	const deletes = () => cloud.sim.requestsTo('POST', '/api/history');

	async function finishedJob(): Promise<string> {
		const run = await cloud.harness.runNode(
			node({ resource: 'workflow', operation: 'execute', workflow: JSON.stringify(txt2img()), waitOptions: quickWait }),
		);
		return run.items[0]!.json.prompt_id as string;
	}

	/** The history answer re-keyed: `{[OTHER]: entry}` in place of `{[promptId]: entry}`. */
	const rekeyed = (promptId: string) => (answer: Record<string, unknown>) => ({ [OTHER]: answer[promptId] });

	test.each([
		['getHistory', 'Get History'],
		['deleteHistory', 'Delete History'],
	])(
		'%s: a history answer keyed by another job fails naming both, and deletes nothing',
		async (operation) => {
			const promptId = await finishedJob();
			proxy().hook = retag(`/api/history/${promptId}`, rekeyed(promptId));
			const result = await cloud.harness.runNode(
				node({ resource: 'server', operation, scope: 'promptIds', promptIds: promptId }, { continueOnFail: true }),
			);
			expect(result.items).toHaveLength(1);
			expect(result.items[0]!.json.error).toBe(
				`The answer to reading job ${promptId} is about another job (${OTHER}), so nothing was taken from it`,
			);
			expect(result.items[0]!.json.not_in_history).toBeUndefined();
			expect(deletes()).toEqual([]);
		},
		30_000,
	);

	test('Wait for Completion: a history answer about another job is asked again until Max Wait, which names both ids', async () => {
		const promptId = await finishedJob();
		proxy().hook = retag(`/api/history/${promptId}`, rekeyed(promptId));
		const result = await cloud.harness.runNode(
			node({ resource: 'workflow', operation: 'waitForCompletion', promptId, waitOptions: { ...quickWait, maxWaitMinutes: 0.5 / 60 } }),
		);
		const error = result.error('Node');
		expect(error?.message).toMatch(new RegExp(`^Job ${promptId} did not finish within 0.5 seconds \\(Max Wait\\)`));
		expect(error?.description).toContain(`The answer to reading job ${promptId} is about another job (${OTHER})`);
		expect(proxy().log.filter((e) => e.path === `/api/history/${promptId}`).length).toBeGreaterThan(1);
	}, 30_000);

	test('Get History: an empty answer is still "not in history"', async () => {
		const promptId = await finishedJob();
		proxy().hook = retag(`/api/history/${promptId}`, () => ({}));
		const result = await cloud.harness.runNode(
			node({ resource: 'server', operation: 'getHistory', scope: 'promptIds', promptIds: promptId }),
		);
		expect(result.items[0]!.json).toMatchObject({ prompt_id: promptId, status: 'not_in_history' });
	}, 30_000);
});
