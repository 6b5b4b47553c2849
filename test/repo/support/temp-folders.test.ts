/**
 * A test run leaves nothing in the system temp folder, also when tests fail or time out. Jest runs
 * here in a child process, in band (as it runs a single file), whose temp folder (TMPDIR) is a
 * fresh, empty one: real node runs that store binary data (media-image), a test that fails, and one
 * that times out while its work goes on writing after the run's teardown. Afterwards the folder
 * must be empty again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
let temp: string;
let child: { process: ChildProcess; closed: Promise<unknown> } | undefined;

beforeAll(() => {
	temp = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-leftovers-'));
});

// Also when the test timed out: the child Jest (and what it started, its process group) is ended
// first, since it would write its folders into `temp` again after it was removed.
afterAll(async () => {
	try {
		if (child && child.process.exitCode === null && child.process.signalCode === null) {
			process.kill(-child.process.pid!, 'SIGKILL');
			await child.closed;
		}
	} finally {
		rmSync(temp, { recursive: true, force: true });
	}
});

function runJest(testMatch: string[]): Promise<{ code: number | null; output: string }> {
	const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temp };
	// This worker's own folders must not be handed down: the child makes its own.
	delete env.N8N_USER_FOLDER;
	delete env.N8N_NODES_HOST_TEST_ROOT;
	// Nor the run's measuring (npm run test:file-seconds): the child's files would be counted as this run's.
	delete env.TEST_CPU_LOG;
	delete env.TEST_FILE_SECONDS;
	const jest = spawn(process.execPath, [join(ROOT, 'node_modules/jest/bin/jest.js'), '--ci', '--runInBand', '--testMatch', ...testMatch], {
		cwd: ROOT,
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
		// Its own process group, so afterAll can end all of it.
		detached: true,
	});
	let output = '';
	jest.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
	jest.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const closed = new Promise<{ code: number | null; output: string }>((done) => jest.on('close', (code) => done({ code, output })));
	child = { process: jest, closed };
	return closed;
}

test('a run with failing and timed-out tests leaves the temp folder empty', async () => {
	const run = await runJest(['**/test/engine/HostMedia/image.test.ts', '**/test/fixtures/leftovers/*.fixture.ts']);
	// The fixtures did fail (one by its assertion, one by its timeout) and the real tests passed.
	expect(Number(/^(\d+) passed, 2 failed$/m.exec(run.output)?.[1] ?? 0)).toBeGreaterThan(0);
	expect(run.output).toContain('failing on purpose');
	expect(run.output).toContain('Exceeded timeout of 300 ms');
	expect(run.code).toBe(1);
	// The child has exited (in band, it had no workers): nothing of its may remain.
	expect(readdirSync(temp)).toEqual([]);
	// A whole engine test file runs in the child: on a busy machine (load average 12) it took over 2 minutes.
}, 480_000);
