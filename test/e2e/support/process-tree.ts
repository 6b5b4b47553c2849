/**
 * The processes below a pid, read from Linux's /proc (parent pid and start time of each), and
 * which of them still run: what a test needs to check that stopping a program left nothing behind,
 * whatever process group or session its children moved to.
 */
import { readFileSync, readdirSync } from 'node:fs';

export interface ProcessEntry {
	pid: number;
	/** Start time in clock ticks since boot: a pid reused later by another process does not match. */
	startedAt: number;
	command: string;
}

interface ProcStat {
	pid: number;
	ppid: number;
	state: string;
	startedAt: number;
}

function statOf(pid: number): ProcStat | undefined {
	let text: string;
	try {
		text = readFileSync(`/proc/${pid}/stat`, 'utf8');
	} catch {
		return undefined;
	}
	// "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ")".
	const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
	return { pid, state: fields[0]!, ppid: Number(fields[1]), startedAt: Number(fields[19]) };
}

function commandOf(pid: number): string {
	try {
		return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 160);
	} catch {
		return '';
	}
}

/** Every process descending from `root` (itself included) now. */
export function processTree(root: number): ProcessEntry[] {
	const children = new Map<number, ProcStat[]>();
	for (const name of readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		const stat = statOf(Number(name));
		if (stat) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
	}
	const rootStat = statOf(root);
	const found: ProcessEntry[] = [];
	const queue = rootStat ? [rootStat] : [];
	while (queue.length > 0) {
		const stat = queue.shift()!;
		found.push({ pid: stat.pid, startedAt: stat.startedAt, command: commandOf(stat.pid) });
		queue.push(...(children.get(stat.pid) ?? []));
	}
	return found;
}

/** The entries still running (a zombie, exited but not yet reaped, counts as gone). */
export function stillRunning(entries: Iterable<ProcessEntry>): ProcessEntry[] {
	return [...entries].filter((entry) => {
		const stat = statOf(entry.pid);
		return stat !== undefined && stat.startedAt === entry.startedAt && stat.state !== 'Z';
	});
}
