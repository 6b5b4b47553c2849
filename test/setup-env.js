// n8n-core reads its user folder at load time: keep it out of the user's home, one per test file,
// inside the run's temporary folder (global-setup.js), which is removed when the run ends.
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');
if (!process.env.N8N_USER_FOLDER) {
	const root = process.env.N8N_NODES_HOST_TEST_ROOT || os.tmpdir();
	const dir = fs.mkdtempSync(path.join(root, `n8n-nodes-host-test-${process.pid}-`));
	process.env.N8N_USER_FOLDER = dir;
	process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
}
