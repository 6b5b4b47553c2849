// n8n-core reads its user folder at load time: keep it out of the user's home, one per worker.
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');
if (!process.env.N8N_USER_FOLDER) {
	const dir = path.join(os.tmpdir(), `n8n-nodes-host-test-${process.pid}`);
	fs.mkdirSync(dir, { recursive: true });
	process.env.N8N_USER_FOLDER = dir;
}
