/**
 * Only a lost submit's own job is taken for it, through n8n's engine against both flavours of the
 * simulator behind the loopback fault proxy (its test hook answers or rewrites chosen requests): a
 * job carrying the lost request id but tagged for another execution, a job whose tag copies every
 * other field but names no n8n install or another workflow of this one, and (self-hosted) a
 * history whose keys are an object's own or not the id their entry names: none is taken, nor
 * cancelled as the run's own. (Retry On Fail at its edges: lost-submit-retry.test.ts.)
 */
import axios from 'axios';

import { REQUEST_TIME_LIMIT } from '../../../nodes/shared/transport/transport';
import { cloudBehindFaultProxy, isSubmit, quickWait, tagOf } from '../../support/cloud-behind-proxy';
import { executeTxt2img, txt2img } from '../../support/cloud';
import { harnessInstanceId } from '../../support/engine';

describe.each([
	{ server: 'the cloud', flavour: 'cloud' as const },
	{ server: 'a self-hosted server', flavour: 'self-hosted' as const },
])('on $server', ({ flavour }) => {
	const { cloud, node, proxy } = cloudBehindFaultProxy(flavour);

	const proxied = (method: string, path: string) => proxy().log.filter((exchange) => exchange.method === method && exchange.path === path);

	test('a job whose tag names another execution is not taken for a lost submit, though it carries its request id', async () => {
		// The other job (7 nodes) must still run when the run ends, 4 s of looks later: at 650 ms a node
		// it had completed by then beside two CPU-bound processes.
		cloud.sim.options.nodeMs = 1500;
		const prompt = txt2img();
		prompt['3']!.inputs.seed = 4242;
		const tag = {
			execution_id: 'another-execution',
			workflow_id: 'wf-harness',
			node_name: 'Other',
			item_index: 7,
			request_id: 'placeholder',
		};
		const answer = await axios.post(`${cloud.sim.baseUrl}/api/prompt`, { prompt, extra_data: { n8n: tag } }, { headers: cloud.headers });
		const other = answer.data.prompt_id as string;
		let lost = '';
		proxy().hook = (exchange, body) => {
			if (isSubmit(exchange)) {
				lost = tagOf(body).request_id;
				return { answer: { status: 502, body: '"Bad Gateway"' } };
			}
			// A service that mixes tags (or a client that copied one): the other job shows the lost request id.
			if (exchange.path === '/api/queue' && lost) return { rewrite: (text) => text.replace('"placeholder"', JSON.stringify(lost)) };
			return undefined;
		};
		const result = await cloud.harness.runNode(node(executeTxt2img({ waitOptions: quickWait() })));

		expect(result.error('Node')?.message).toMatch(/and no job with request id [0-9a-f-]{36} was found on/);
		expect(JSON.stringify(result.run.data)).not.toContain(other);
		expect(cloud.sim.cloud.jobs.get(other)?.status).toMatch(/^(pending|in_progress)$/);
	}, 30_000);

	// An older tag, or one another client wrote: the lost submit's execution, node, item and request id
	// (filled in by the proxy once the submit is lost), and no install, or this install and another workflow.
	test.each([
		{ differs: 'names no n8n install', seed: 4343, tag: { workflow_id: 'wf-harness' } },
		{ differs: 'names this install but another workflow', seed: 4545, tag: { workflow_id: 'wf-another', instance_id: 'this' } },
	])(
		'a job whose tag copies every other field of the lost submit but $differs is not taken for it',
		async ({ seed, tag }) => {
			// The lookalike job (7 nodes) must still run when the run ends: at 650 ms a node it had
			// completed by then on a self-hosted server, beside two CPU-bound processes at load 10.
			cloud.sim.options.nodeMs = 1500;
			const prompt = txt2img();
			prompt['3']!.inputs.seed = seed;
			const lookalike = {
				execution_id: 'placeholder-execution',
				...tag,
				...(tag.instance_id ? { instance_id: harnessInstanceId() } : {}),
				node_name: 'Node',
				item_index: 0,
				request_id: 'placeholder',
			};
			const answer = await axios.post(
				`${cloud.sim.baseUrl}/api/prompt`,
				{ prompt, extra_data: { n8n: lookalike } },
				{ headers: cloud.headers },
			);
			const forged = answer.data.prompt_id as string;
			let lost: { execution_id: string; request_id: string } | undefined;
			proxy().hook = (exchange, body) => {
				if (isSubmit(exchange)) {
					lost = JSON.parse(body).extra_data.n8n;
					return { answer: { status: 502, body: '"Bad Gateway"' } };
				}
				if (exchange.path === '/api/queue' && lost) {
					const { execution_id, request_id } = lost;
					return {
						rewrite: (text) =>
							text.replace('"placeholder-execution"', JSON.stringify(execution_id)).replace('"placeholder"', JSON.stringify(request_id)),
					};
				}
				return undefined;
			};
			const result = await cloud.harness.runNode(node(executeTxt2img({ waitOptions: quickWait() })));

			expect(lost?.execution_id).toBe(result.executionId);
			expect(result.error('Node')?.message).toMatch(/and no job with request id [0-9a-f-]{36} was found on/);
			expect(JSON.stringify(result.run.data)).not.toContain(forged);
			// Never cancelled as this run's own at its end either.
			expect(cloud.sim.cloud.jobs.get(forged)?.status).toMatch(/^(pending|in_progress)$/);
		},
		30_000,
	);

	if (flavour === 'self-hosted') {
		describe.each([
			['keys an object already has', (tag: string) => ['__proto__', 'constructor', 'prototype'].map((key) => entry(key, key, tag))],
			['a key that is not the id its entry names', (tag: string) => [entry('a-job-of-its-own', 'another-job', tag)]],
		])('a history of %s', (_what, entries) => {
			test('names no job for a lost submit', async () => {
				REQUEST_TIME_LIMIT.ms = 1000;
				let extraData = '';
				proxy().hook = (exchange, body) => {
					if (isSubmit(exchange)) {
						extraData = JSON.stringify(JSON.parse(body).extra_data);
						return { answer: { status: 502, body: '"Bad Gateway"' } };
					}
					if (exchange.path === '/api/history' && extraData) return { rewrite: () => `{${entries(extraData).join(',')}}` };
					return undefined;
				};
				const result = await cloud.harness.runNode(node(executeTxt2img({ waitOptions: quickWait() })));

				expect(result.error('Node')?.message).toMatch(/and no job with request id [0-9a-f-]{36} was found on your server$/);
				expect(proxied('GET', '/api/history')).toHaveLength(2);
			}, 30_000);
		});
	}
});

/** A history entry under `key` whose queue item names `promptId` and carries `extraData` (the lost submit's own tag). */
function entry(key: string, promptId: string, extraData: string): string {
	return `${JSON.stringify(key)}: {"prompt": [1, ${JSON.stringify(promptId)}, {}, ${extraData}, []], "outputs": {}, "status": {"status_str": "success", "completed": true}}`;
}
