// One temporary folder for the whole Jest run, made before the workers start: each test file's
// n8n user folder (setup-env.js) is made inside it, and global-teardown.js removes it. A worker's
// own exit cannot be relied on to clean up (Jest may stop it without one).
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');

module.exports = async () => {
	process.env.N8N_NODES_HOST_TEST_ROOT = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-nodes-host-test-'));
};
