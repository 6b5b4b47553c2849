/**
 * `npm start [-- --once]`: the README's main job. Builds (done by the npm script), starts the
 * simulator and a real n8n with this package installed, runs the text-to-image example through
 * n8n and prints its output URLs, then prints the editor URL and login and keeps running until
 * Ctrl-C. With --once it exits after the demo (exit code 0 when the demo succeeded).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { describeFailure, outputItems, type ExecutionResult, type StoredWorkflow } from './n8n-client';
import { onInterrupt } from './processes';
import { startHostStack, type HostStack } from './stack';
import { EXAMPLES_DIR, TEXT_TO_IMAGE_EXAMPLE, nodeDefinitionsWorkflow, urlsIn } from './workflows';

const out = (line = '') => process.stdout.write(`${line}\n`);
const progress = (line: string) => process.stdout.write(`  · ${line}\n`);

function parseArgs(argv: string[]): { once: boolean } {
	let once = false;
	for (const arg of argv) {
		if (arg === '--once') once = true;
		else if (arg === '--help' || arg === '-h') {
			out('Usage: npm start [-- --once]');
			out('  Starts the simulator and a real n8n with n8n-nodes-host, runs the text-to-image example,');
			out('  prints its output URLs and the editor login, and keeps running until Ctrl-C.');
			out('  --once   run the demo and exit (for scripts and CI)');
			process.exit(0);
		} else throw new Error(`Unknown option ${arg} (try --help)`);
	}
	return { once };
}

/** The workflow the demo runs: the text-to-image example, or a stand-in while it does not exist. */
async function demoWorkflow(stack: HostStack): Promise<{ workflow: StoredWorkflow; label: string }> {
	const example = stack.examples.find((e) => e.file === TEXT_TO_IMAGE_EXAMPLE);
	if (example) return { workflow: example.stored, label: `examples/${TEXT_TO_IMAGE_EXAMPLE}` };
	const workflow = await stack.importWorkflow(nodeDefinitionsWorkflow());
	return { workflow, label: `"${workflow.name}" (examples/${TEXT_TO_IMAGE_EXAMPLE} is not there yet)` };
}

function printResult(execution: ExecutionResult, workflow: StoredWorkflow): void {
	const lastNode = execution.lastNodeExecuted ?? workflow.nodes[workflow.nodes.length - 1]!.name;
	const items = outputItems(execution, lastNode);
	const urls = urlsIn(items.map((item) => item.json));
	out(`Result of "${lastNode}": ${items.length} item(s)`);
	if (urls.length > 0) {
		out('Output URLs:');
		for (const url of urls) out(`  ${url}`);
	} else {
		for (const item of items.slice(0, 5)) out(`  ${JSON.stringify(item.json).slice(0, 300)}`);
		if (items.length > 5) out(`  … and ${items.length - 5} more`);
	}
}

async function main(): Promise<void> {
	const { once } = parseArgs(process.argv.slice(2));
	out('n8n-nodes-host demo: simulator + real n8n (first run installs n8n into the cache; later runs take seconds)');
	const stack = await startHostStack({ progress });

	let ok = false;
	try {
		const { workflow, label } = await demoWorkflow(stack);
		out();
		out(`Running ${label} through n8n…`);
		const execution = await stack.client.runWorkflow(workflow.id, { timeoutMs: 120000 });
		if (execution.status === 'success') {
			ok = true;
			printResult(execution, workflow);
		} else out(`The demo workflow did not succeed: ${describeFailure(execution)}`);
		out();
		out(`Editor:   ${stack.n8n.url}/workflow/${workflow.id}`);
		out(`Login:    ${stack.owner.email} / ${stack.owner.password}`);
		out(`Examples: ${stack.examples.length === 0 ? `none in ${EXAMPLES_DIR}` : ''}`);
		for (const example of stack.examples) out(`  ${stack.n8n.url}/workflow/${example.stored.id}  ${example.file}`);
		out(`n8n log:  ${stack.n8n.logFile}`);
	} catch (error) {
		out(`The demo failed: ${(error as Error).message}`);
		out(`Last lines of n8n's log:\n${stack.n8n.logTail(20)}`);
	}

	if (once) {
		await stack.stop();
		process.exit(ok ? 0 : 1);
	}
	out();
	out('n8n keeps running; press Ctrl-C to stop it and the simulator.');
	onInterrupt(async () => {
		out('\nStopping n8n and the simulator…');
	});
	// Ctrl-C runs the stack's stop (registered by startHostStack) and exits.
	await new Promise(() => undefined);
}

if (!existsSync(join(__dirname, '..', '..', '..', 'dist'))) {
	process.stderr.write('dist/ is missing: run `npm run build` (npm start does it for you).\n');
	process.exit(1);
}

main().catch((error: Error) => {
	process.stderr.write(`npm start failed: ${error.message}\n`);
	process.exit(1);
});
