/**
 * The real upstream ComfyUI server for `npm run test:real-server`: the one at REAL_SERVER_URL
 * when it is set, else one started for the suite by ../shared/real-server/start.sh (it needs the
 * upstream source as a git dir: COMFYUI_GIT, see that folder's README) and stopped after it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { sharedDir } from '../../support/shared-data';

export interface RealServer {
	url: string;
	/** ComfyUI's version, from /system_stats. */
	version: string;
}

const START_SCRIPT = join(sharedDir('real-server'), 'start.sh');

let server: (RealServer & { pid?: number }) | undefined;

/** The server the suite runs against (set by `useRealServer`'s beforeAll). */
export function realServer(): RealServer {
	if (!server) throw new Error('The real server did not start (see the first error above)');
	return server;
}

export function useRealServer(): void {
	beforeAll(async () => {
		let url = process.env.REAL_SERVER_URL?.replace(/\/+$/, '');
		let pid: number | undefined;
		if (!url) {
			if (!existsSync(START_SCRIPT)) throw new Error(`Set REAL_SERVER_URL, or put the real server's scripts at ${START_SCRIPT}`);
			if (!process.env.COMFYUI_GIT) {
				throw new Error('Set COMFYUI_GIT to a git dir of upstream ComfyUI (see ../shared/real-server/README.md), or REAL_SERVER_URL');
			}
			const line = execFileSync('bash', [START_SCRIPT, '0'], {
				encoding: 'utf8',
				stdio: ['ignore', 'pipe', 'inherit'],
				timeout: 15 * 60_000,
			});
			const started = JSON.parse(line.trim().split('\n').pop()!) as { url: string; pid: number };
			url = started.url;
			pid = started.pid;
		}
		const answer = await fetch(`${url}/system_stats`).catch((error: Error) => {
			throw new Error(
				`The real server at ${url} does not answer (${error.message}): start it, or unset REAL_SERVER_URL and set COMFYUI_GIT`,
			);
		});
		const stats = (await answer.json()) as { system?: { comfyui_version?: string } };
		server = { url, pid, version: String(stats.system?.comfyui_version ?? 'unknown') };
		process.stderr.write(`[real-server] ComfyUI ${server.version} at ${url}\n`);
	}, 16 * 60_000);

	afterAll(() => {
		if (server?.pid) execFileSync('bash', [START_SCRIPT, 'stop', String(server.pid)], { stdio: 'inherit' });
		server = undefined;
	});
}

/** Waits until the server's queue is empty (a case's jobs must not slow the next one). */
export async function drainQueue(url: string): Promise<void> {
	await fetch(`${url}/queue`, { method: 'POST', body: JSON.stringify({ clear: true }) });
	await fetch(`${url}/interrupt`, { method: 'POST' });
	for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 200))) {
		const queue = (await (await fetch(`${url}/queue`)).json()) as { queue_running: unknown[]; queue_pending: unknown[] };
		if (queue.queue_running.length === 0 && queue.queue_pending.length === 0) return;
	}
	throw new Error('The real server did not empty its queue within 60 s');
}
