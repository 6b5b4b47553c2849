// n8n-core reads its user folder at load time: keep it out of the user's home, one per worker,
// removed when the worker exits.
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');
if (!process.env.N8N_USER_FOLDER) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), `n8n-nodes-host-test-${process.pid}-`));
	process.env.N8N_USER_FOLDER = dir;
	process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
}
