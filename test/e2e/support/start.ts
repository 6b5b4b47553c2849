/**
 * `npm start [-- --once]`: the README's main job. Builds (done by the npm script), starts the
 * simulator and a real n8n with this package installed, runs the text-to-image example through
 * n8n, saves its output files (into demo-output/, or --output) and prints the link to that execution in the
 * editor, the login and the pid to stop; it keeps running until Ctrl-C, or SIGINT or SIGTERM sent
 * to that pid, which stop n8n, the simulator and their temp folders. With --once it exits after
 * the demo (exit code 0 when it succeeded) and prints only what outlives it: the result and the
 * saved files.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';

import { imageDimensions } from '../../../simulator/media/formats';
import { describeFailure, outputItems, type ExecutionResult, type StoredWorkflow } from './n8n-client';
import { REPO_ROOT } from './n8n-server';
import { interrupted, onInterrupt } from './processes';
import { startHostStack, type HostStack } from './stack';
import { EXAMPLES_DIR, TEXT_TO_IMAGE_EXAMPLE, nodeDefinitionsWorkflow, urlsIn } from './workflows';

/** Where the demo saves its output files unless --output says otherwise (ignored by git). */
const DEFAULT_OUTPUT_DIR = join(REPO_ROOT, 'demo-output');

const out = (line = '') => process.stdout.write(`${line}\n`);
const progress = (line: string) => process.stdout.write(`  · ${line}\n`);

interface Options {
	once: boolean;
	/** Where the output files are saved. */
	outputDir: string;
}

function parseArgs(argv: string[]): Options {
	const options: Options = { once: false, outputDir: DEFAULT_OUTPUT_DIR };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i]!;
		if (arg === '--once') options.once = true;
		else if (arg === '--output' && argv[i + 1]) options.outputDir = resolve(argv[++i]!);
		else if (arg === '--help' || arg === '-h') {
			out('Usage: npm start [-- [--once] [--output DIR]]');
			out('  Starts the simulator and a real n8n with n8n-nodes-host, runs the text-to-image example,');
			out('  saves its output files, prints the link to the run in the editor and the login, and keeps');
			out('  running until Ctrl-C (or SIGINT/SIGTERM to the pid it prints).');
			out('  --once         run the demo, print the result and the saved files, and exit (for scripts and CI)');
			out('  --output DIR   where to save the output files (default: demo-output/ in the repository)');
			process.exit(0);
		} else throw new Error(`Unknown option ${arg} (try --help)`);
	}
	return options;
}

/** The workflow the demo runs: the text-to-image example, or a stand-in while it does not exist. */
async function demoWorkflow(stack: HostStack): Promise<{ workflow: StoredWorkflow; label: string }> {
	const example = stack.examples.find((e) => e.file === TEXT_TO_IMAGE_EXAMPLE);
	if (example) return { workflow: example.stored, label: `examples/${TEXT_TO_IMAGE_EXAMPLE}` };
	const workflow = await stack.importWorkflow(nodeDefinitionsWorkflow());
	return { workflow, label: `"${workflow.name}" (examples/${TEXT_TO_IMAGE_EXAMPLE} is not there yet)` };
}

/** "512×512 PNG, 67 KB" or "WAV, 2 KB": what a saved file is, as far as its bytes say. */
function describeFile(name: string, bytes: Buffer): string {
	const size = bytes.length < 1024 ? `${bytes.length} bytes` : `${(bytes.length / 1024).toFixed(0)} KB`;
	const dimensions = imageDimensions(bytes);
	const type = name.split('.').pop()!.toUpperCase();
	return dimensions ? `${dimensions.width}×${dimensions.height} ${type}, ${size}` : `${type}, ${size}`;
}

/** Downloads each output URL into `dir`; returns the lines to print. */
async function saveOutputs(urls: string[], dir: string): Promise<string[]> {
	mkdirSync(dir, { recursive: true });
	const lines: string[] = [];
	for (const url of urls) {
		const name = basename(new URL(url).pathname);
		const response = await fetch(url, { signal: AbortSignal.timeout(60000) });
		if (!response.ok) {
			lines.push(`  ${name}: could not be downloaded (HTTP ${response.status})`);
			continue;
		}
		const bytes = Buffer.from(await response.arrayBuffer());
		const file = join(dir, name);
		writeFileSync(file, bytes);
		const shown = file.startsWith(join(process.cwd(), '/')) ? relative(process.cwd(), file) : file;
		lines.push(`  ${shown}  (${describeFile(name, bytes)})`);
	}
	return lines;
}

/** Prints the result of the last node: its output files (saved), or its first items; `once`: no URL that dies with the run. */
async function printResult(execution: ExecutionResult, workflow: StoredWorkflow, { once, outputDir }: Options): Promise<void> {
	const lastNode = execution.lastNodeExecuted ?? workflow.nodes[workflow.nodes.length - 1]!.name;
	const items = outputItems(execution, lastNode);
	const urls = urlsIn(items.map((item) => item.json));
	out(`Result of "${lastNode}": ${items.length} item(s)`);
	if (urls.length === 0) {
		for (const item of items.slice(0, 5)) out(`  ${JSON.stringify(item.json).slice(0, 300)}`);
		if (items.length > 5) out(`  … and ${items.length - 5} more`);
		return;
	}
	out('Saved:');
	for (const line of await saveOutputs(urls, outputDir)) out(line);
	if (once) return;
	out('Output URLs (signed by the simulator, valid while this runs):');
	for (const url of urls) out(`  ${url}`);
}

function printLinks(stack: HostStack, workflow: StoredWorkflow, executionId: string): void {
	out();
	out(`Open the run in n8n: ${stack.n8n.url}/workflow/${workflow.id}/executions/${executionId}`);
	out(`Login:    ${stack.owner.email} / ${stack.owner.password}`);
	out(`Examples: ${stack.examples.length === 0 ? `none in ${EXAMPLES_DIR}` : ''}`);
	for (const example of stack.examples) out(`  ${stack.n8n.url}/workflow/${example.stored.id}  ${example.file}`);
	out(`n8n log:  ${stack.n8n.logFile}`);
}

async function main(): Promise<void> {
	const options = parseArgs(process.argv.slice(2));
	const { once } = options;
	out('n8n-nodes-host demo: simulator + real n8n (first run installs n8n into the cache; later runs take seconds)');
	out(`pid ${process.pid}: Ctrl-C, or \`kill -INT ${process.pid}\` (or -TERM), stops n8n, the simulator and their temp folders`);
	onInterrupt(async () => {
		out('\nStopping n8n and the simulator…');
	});
	process.once('exit', () => {
		if (interrupted()) out('Stopped: n8n, the simulator and their temp folders are gone.');
	});
	const stack = await startHostStack({ progress });

	let ok = false;
	try {
		const { workflow, label } = await demoWorkflow(stack);
		out();
		out(`Running ${label} through n8n…`);
		const execution = await stack.client.runWorkflow(workflow.id, { timeoutMs: 120000 });
		if (execution.status === 'success') {
			await printResult(execution, workflow, options);
			ok = true;
		} else out(`The demo workflow did not succeed: ${describeFailure(execution)}`);
		if (!once) printLinks(stack, workflow, execution.id);
	} catch (error) {
		if (interrupted()) return; // stopping: what broke is n8n going away
		out(`The demo failed: ${(error as Error).message}`);
		if (!once) out(`Last lines of n8n's log:\n${stack.n8n.logTail(20)}`);
	}

	if (once) {
		await stack.stop();
		process.exit(ok ? 0 : 1);
	}
	out();
	out(`n8n keeps running; press Ctrl-C (or \`kill -INT ${process.pid}\`) to stop it and the simulator.`);
	// The signal runs the stack's stop (registered by startHostStack) and exits.
	await new Promise(() => undefined);
}

if (!existsSync(join(__dirname, '..', '..', '..', 'dist'))) {
	process.stderr.write('dist/ is missing: run `npm run build` (npm start does it for you).\n');
	process.exit(1);
}

main().catch((error: Error) => {
	if (interrupted()) return;
	process.stderr.write(`npm start failed: ${error.message}\n`);
	process.exit(1);
});
