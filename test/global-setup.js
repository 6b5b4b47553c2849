// One temporary folder for the whole Jest run, made before the workers start: each test file's
// n8n user folder (setup-env.js) is made inside it, and global-teardown.js removes it. A worker's
// own exit cannot be relied on to clean up (Jest may stop it without one).
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');

module.exports = async () => {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-host-test-'));
	process.env.N8N_NODES_HOST_TEST_ROOT = root;
	// A test that timed out may still be running after the teardown (in band, in this process) and
	// write into its folder again: the folder goes once more when this process exits.
	process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
};
