/**
 * Records the contract fixtures (test/fixtures/real-server/) from a running upstream ComfyUI
 * server, such as one that ../shared/real-server/start.sh started:
 *   npm run record:real-server -- http://127.0.0.1:8188
 * Each scenario of test/support/contract/scenarios.ts goes into one file, named after it. The server's
 * version (from /system_stats) goes into versions.json beside them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { playContract } from '../test/support/contract/scenarios';

const FIXTURES = join(__dirname, '../test/fixtures/real-server');

async function main(): Promise<void> {
	const baseUrl = (process.argv[2] ?? process.env.REAL_SERVER_URL ?? '').replace(/\/+$/, '');
	if (!baseUrl) throw new Error('usage: npm run record:real-server -- URL (a server started by ../shared/real-server/start.sh)');
	const stats = (await (await fetch(`${baseUrl}/system_stats`)).json()) as { system?: Record<string, unknown> };
	// Any checkpoint the server lists passes validation; the test server cannot load model files.
	const info = (await (await fetch(`${baseUrl}/object_info/CheckpointLoaderSimple`)).json()) as Record<string, any>;
	const checkpoints = info.CheckpointLoaderSimple.input.required.ckpt_name[0] as string[];
	const record = await playContract({ baseUrl, failingCheckpoint: checkpoints[0]!, colour: Math.floor(Math.random() * 0xffffff) });
	mkdirSync(FIXTURES, { recursive: true });
	for (const [name, scenario] of Object.entries(record)) {
		writeFileSync(join(FIXTURES, `${name.replace(':', '.')}.json`), `${JSON.stringify(scenario, null, '\t')}\n`);
	}
	const system = stats.system ?? {};
	writeFileSync(
		join(FIXTURES, 'versions.json'),
		`${JSON.stringify({ comfyui_version: system.comfyui_version, pytorch_version: system.pytorch_version, recorded: new Date().toISOString().slice(0, 10) }, null, '\t')}\n`,
	);
	console.log(`recorded ${Object.keys(record).length} scenarios from ComfyUI ${String(system.comfyui_version)} into ${FIXTURES}`);
}

main().catch((error: Error) => {
	console.error(error.message);
	process.exit(1);
});
