/**
 * The simulator's CLI (`npm run simulator`) as a child process, for the CLI tests. Every child this
 * starts is ended after the test file, also when a hook timed out before the test kept hold of it
 * (on a busy machine a banner can take longer than a hook's time-out: the simulator then ran on).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const started = new Set<ChildProcessWithoutNullStreams>();

afterAll(() => {
	for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});

/** Starts `tsx simulator/cli.ts <args>` in the repository. */
export function spawnCli(args: string[]): ChildProcessWithoutNullStreams {
	const child = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'simulator/cli.ts'), ...args], {
		cwd: ROOT,
	});
	started.add(child);
	child.on('exit', () => started.delete(child));
	return child;
}
