/**
 * `npm run test:real-server`: the package against the real upstream ComfyUI server (see
 * support/real-server.ts for which server). Not part of CI: CI machines have no upstream source.
 * - the real server still answers as the contract fixtures say (test/fixtures/real-server/, which
 *   the simulator is checked against in `npm test`): a difference means upstream changed, and the
 *   fixtures are recorded again with `npm run record:real-server`;
 * - Host Cloud through n8n's engine (cases/engine.ts, its Server controls included), and in a real n8n (cases/n8n.ts);
 * - a lost submit found by its request id, through a fault proxy (cases/lost-submit.ts);
 * - the editor's own test workflows converted and judged by the real validator (cases/corpus.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { scenarioDifferences } from '../support/contract/compare';
import { playContract, type ScenarioRecord } from '../support/contract/scenarios';
import { useHostStack } from '../e2e/support/suite-stack';
import { drainQueue, realServer, useRealServer } from './support/real-server';

useRealServer();
useHostStack('real-server', 'real-server.log', { importExamples: false });

describe('the real server answers as the contract fixtures say', () => {
	const fixtures = join(__dirname, '../fixtures/real-server');
	const recorded: Record<string, ScenarioRecord> = Object.fromEntries(
		readdirSync(fixtures)
			.filter((file) => file.endsWith('.json') && file !== 'versions.json')
			.map((file) => [file.replace(/\.json$/, '').replace('.', ':'), JSON.parse(readFileSync(join(fixtures, file), 'utf8'))]),
	);
	let played: Record<string, ScenarioRecord>;

	beforeAll(async () => {
		await drainQueue(realServer().url);
		const info = (await (await fetch(`${realServer().url}/object_info/CheckpointLoaderSimple`)).json()) as Record<string, any>;
		played = await playContract({
			baseUrl: realServer().url,
			failingCheckpoint: info.CheckpointLoaderSimple.input.required.ckpt_name[0][0],
			colour: Math.floor(Math.random() * 0xffffff),
		});
	}, 120_000);

	test.each(Object.keys(recorded))('%s', (name) => {
		expect(scenarioDifferences(recorded[name]!, played[name]!, name === 'queue-and-interrupt')).toEqual([]);
	});
});

require('./cases/engine');
require('./cases/n8n');
require('./cases/lost-submit');
require('./cases/corpus');
require('./cases/v2');
