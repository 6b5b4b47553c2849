// Removes the run's temporary folder (global-setup.js), with every test file's n8n user folder in it.
const fs = require('node:fs');

module.exports = async () => {
	const root = process.env.N8N_NODES_HOST_TEST_ROOT;
	if (root) fs.rmSync(root, { recursive: true, force: true });
};
