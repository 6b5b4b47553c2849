/**
 * A Jest worker leaves at once when Jest ends it. Measured on this 2-core machine (issue 44): a
 * worker that had run a dozen engine test files (n8n loaded by each, 650 MiB resident) took 0.5 to
 * 4 s to tear its process down after Jest's "end" message, with no handle left open, so Jest (which
 * waits 0.5 s) force-killed it and printed "A worker process has failed to exit gracefully". By the
 * time "end" comes every result has been sent, so nothing is lost by skipping the teardown.
 * Loaded by the test environment (quiet-environment.js), in the worker's own process, once.
 */
const CHILD_MESSAGE_END = 2; // jest-worker's message that ends a worker

const KEY = Symbol.for('n8n-nodes-host.worker-exit');
if (process.send && !process[KEY]) {
	process[KEY] = true;
	const onMessage = (message) => {
		if (!Array.isArray(message) || message[0] !== CHILD_MESSAGE_END) return;
		process.removeListener('message', onMessage);
		// After Jest's own handler (registered first) has run its teardown.
		setImmediate(() => process.kill(process.pid, 'SIGKILL'));
	};
	process.on('message', onMessage);
}
