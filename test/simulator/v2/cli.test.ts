/**
 * `npm run simulator -- --flavour v2`: the banner names the flavour, the surface and what to
 * connect with, and the server answers the v2 API; an unknown surface stops it with a message.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { spawnCli } from '../support/cli-process';
import { send } from '../support/v2';

const ROOT = join(__dirname, '..', '..', '..');

/** Runs the CLI; resolves with its first stdout line (parsed), or its exit code and stderr when it stops first. */
function runCli(args: string[]): Promise<{ banner?: Record<string, string>; code?: number | null; stderr: string; stop(): Promise<void> }> {
	const child = spawnCli(args);
	let stderr = '';
	let out = '';
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
	const stop = async () => {
		child.kill('SIGTERM');
		await exited;
	};
	return new Promise((resolve) => {
		child.stdout.on('data', (chunk: Buffer) => {
			out += chunk.toString();
			const newline = out.indexOf('\n');
			if (newline !== -1) resolve({ banner: JSON.parse(out.slice(0, newline)) as Record<string, string>, stderr, stop });
		});
		void exited.then((code) => resolve({ code, stderr, stop }));
	});
}

test('--flavour v2 --surface deployment prints its banner and serves POST /api/v2/jobs with the bearer key', async () => {
	const cli = await runCli(['--flavour', 'v2', '--surface', 'deployment', '--node-ms', '5', '--quiet']);
	try {
		expect(cli.banner).toEqual({
			flavour: 'v2',
			surface: 'deployment',
			baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
			storageUrl: expect.stringMatching(/^http:\/\/localhost:\d+$/),
			apiKey: 'sim-api-key',
		});
		const workflow = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/txt2img-api.json'), 'utf8')) as unknown;
		const created = await send(
			'POST',
			`${cli.banner!.baseUrl}/api/v2/jobs`,
			{ authorization: `Bearer ${cli.banner!.apiKey}` },
			{ workflow },
		);
		expect([created.status, created.body.urls.self]).toEqual([201, `${cli.banner!.baseUrl}/api/v2/jobs/${created.body.id}`]);
	} finally {
		await cli.stop();
	}
}, 30000);

test('an unknown surface stops the CLI with a message naming the allowed ones', async () => {
	const cli = await runCli(['--flavour', 'v2', '--surface', 'moon']);
	expect(cli.code).toBe(1);
	expect(cli.stderr).toContain("--surface is cloud, deployment or self-hosted, not 'moon'");
}, 30000);
