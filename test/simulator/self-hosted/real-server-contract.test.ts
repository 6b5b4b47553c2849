/**
 * The simulator's self-hosted flavour against the real upstream server: every scenario of
 * test/support/contract/scenarios.ts is played against the simulator and compared with what the real
 * ComfyUI server answered to the same scenario (test/fixtures/real-server/, recorded with
 * `npm run record:real-server`). Where they differ, the real server is right.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { UNAVAILABLE_CHECKPOINTS } from '../../../simulator/cloud/catalogue';
import type { Simulator } from '../../../simulator/server';
import { scenarioDifferences } from '../../support/contract/compare';
import { playContract, type ContractRecord, type ScenarioRecord } from '../../support/contract/scenarios';
import { useSimulator } from '../support/simulator';

const FIXTURES = join(__dirname, '../../fixtures/real-server');
const recorded: Record<string, ScenarioRecord> = Object.fromEntries(
	readdirSync(FIXTURES)
		.filter((file) => file.endsWith('.json') && file !== 'versions.json')
		.map((file) => [file.replace(/\.json$/, '').replace('.', ':'), JSON.parse(readFileSync(join(FIXTURES, file), 'utf8'))]),
);

let sim: Simulator;
// Each node takes 50 ms: the queue scenario's 62-node job runs for about 3 s, long enough to be seen running.
useSimulator({ flavour: 'self-hosted', nodeMs: 50 }, (started) => (sim = started));

let simulated: ContractRecord;
beforeAll(async () => {
	simulated = await playContract({ baseUrl: sim.baseUrl, failingCheckpoint: UNAVAILABLE_CHECKPOINTS[0]!, colour: 1234 });
}, 60_000);

test('the fixtures hold every scenario the contract plays', () => {
	expect(Object.keys(recorded).sort()).toEqual(Object.keys(simulated).sort());
});

test.each(Object.keys(recorded))('%s: the simulator answers as the real server does', (name) => {
	expect(scenarioDifferences(recorded[name]!, simulated[name]!, name === 'queue-and-interrupt')).toEqual([]);
});
