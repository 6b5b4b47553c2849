// The per-file CPU log (TEST_CPU_LOG): one tab-separated line a test file, written by the test
// environment (quiet-environment.js) and read back by the summary reporter (TEST_FILE_SECONDS).
// Its layout: CPU seconds, the worker's pid, its heap after the file ("<MiB>M"), wall seconds, and
// the file's path from the project's folder.
const { appendFileSync, existsSync, readFileSync } = require('node:fs');

/** Appends one file's line to `log`. */
function appendCpuLine(log, { cpu, pid, heapMiB, wall, path }) {
	appendFileSync(log, `${cpu.toFixed(2)}\t${pid}\t${heapMiB}M\t${wall.toFixed(2)}\t${path}\n`);
}

/** Each file's CPU seconds in `log` (its last line for the file: the log is appended to run after run). */
function cpuSecondsIn(log) {
	const seconds = new Map();
	if (!log || !existsSync(log)) return seconds;
	for (const line of readFileSync(log, 'utf8').split('\n')) {
		const [cpu, , , , path] = line.split('\t');
		if (path) seconds.set(path, Number(cpu));
	}
	return seconds;
}

module.exports = { appendCpuLine, cpuSecondsIn };
