/**
 * docs/architecture.md's recipe "Adding an operation" names every kind of artifact an operation of
 * this package has, and every operation has each of them: both from one list of steps
 * (`support/operation-steps.ts`). The endpoints are the ones each operation's row of its node's page
 * names, asked of a running simulator (both flavours) over loopback: one it does not route fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';

import { startSimulator, type Simulator, type V2Simulator } from '../../simulator/server';
import { ROOT } from './support/folder-blocks';
import { endpointsOf, factsWithoutRoutes, operations, STEPS, type Facts } from './support/operation-steps';

// Operations whose endpoint no simulator test names yet (their engine tests run them against the
// simulator): kept exact, so one filled must leave the list.
const WITHOUT_SIMULATOR_TEST: string[] = [];

const recipe = () => {
	const block =
		/<!-- recipe:operation -->\n([\s\S]*?)<!-- \/recipe -->/.exec(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'))?.[1] ?? '';
	return block.split(/\n(?=\d+\. )/).filter((item) => /^\d+\. /.test(item));
};

/** Whether a server routes a request: anything but the simulator's "No route" 404 or a 405. */
async function routes(base: string, method: string, path: string): Promise<boolean> {
	const answer = await axios.request({ url: `${base}${path}`, method, responseType: 'text', validateStatus: () => true });
	return !(answer.status === 405 || (answer.status === 404 && String(answer.data).includes('No route for')));
}

describe('the recipe for an operation', () => {
	const all = operations();
	let facts: Facts;
	let sims: Array<Simulator | V2Simulator> = [];
	beforeAll(async () => {
		facts = factsWithoutRoutes(WITHOUT_SIMULATOR_TEST);
		// The v2 flavour routes the v2-only operations (Get Job Workflow); self-hosted, so that a probe without a key reaches its routes.
		sims = [
			await startSimulator({}),
			await startSimulator({ flavour: 'self-hosted' }),
			await startSimulator({ flavour: 'v2', v2: { surface: 'self-hosted' } }),
		];
		const bases = sims.flatMap((sim) => [sim.baseUrl, sim.registryUrl]);
		for (const { method, path } of all.flatMap(endpointsOf)) {
			const answers = await Promise.all(bases.map((base) => routes(base, method, path)));
			facts.routed.set(`${method} ${path}`, answers.some(Boolean));
		}
	});
	afterAll(async () => {
		await Promise.all(sims.map((sim) => sim.close()));
	});

	test('finds every operation module of the three nodes, and their endpoints', () => {
		expect(all.length).toBeGreaterThanOrEqual(36);
		expect(new Set(all.map((op) => op.node))).toEqual(new Set(['HostCloud', 'HostMedia', 'HostRegistry']));
		expect(facts.routed.size).toBeGreaterThan(20);
	});

	test('the probe tells a route from none (a probe that answered yes to all would pass anyway)', async () => {
		expect(await routes(sims[0]!.baseUrl, 'POST', '/api/prompt')).toBe(true);
		expect(await routes(sims[0]!.baseUrl, 'GET', '/api/no-such-endpoint')).toBe(false);
		expect(await routes(sims[0]!.registryUrl, 'DELETE', '/publishers')).toBe(false);
		expect(await routes(sims[2]!.baseUrl, 'GET', '/api/v2/jobs/x1/workflow')).toBe(true);
		expect(await routes(sims[2]!.baseUrl, 'GET', '/api/v2/no-such-endpoint')).toBe(false);
	});

	test('has one step per kind of artifact, in order, each naming it', () => {
		const steps = recipe();
		expect(steps.length).toBe(STEPS.length);
		const unnamed = STEPS.flatMap((step, index) => (step.named.test(steps[index] ?? '') ? [] : [`step ${index + 1}: ${step.artifact}`]));
		expect(unnamed).toEqual([]);
	});

	test.each(STEPS.map((step) => [step.artifact, step] as const))('every operation has %s', (_artifact, step) => {
		const lacking = all.flatMap((op) => {
			const why = step.lacks(op, facts);
			return why ? [`${op.id}: ${why}`] : [];
		});
		expect(lacking).toEqual([]);
	});
});
