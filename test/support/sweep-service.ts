/**
 * The loopback service swept runs go to (the parameter sweeps refuse every request there, the
 * malformed-answer sweep answers each with the same bad answer). Every run has an address of its
 * own under the service's (`/run-<n>`, with the credentials made for it), so each request and each
 * WebSocket counts for the run that sent it. With one address for all runs, a request that reached
 * the service after its run had ended (seen under load: the WebSocket of a run whose end aborted
 * its connect) counted for the next run, which may be one that must send nothing; now it stays its
 * own run's, where a look after the sweep (`spokeLate`) still finds it.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';

import { startHostileService, type SeenRequest } from './hostile-service';

export type Answer = (req: SeenRequest, res: ServerResponse) => void;

/** What reached the service for one run: its requests (the run's part of the path taken off) and WebSockets. */
export interface RunRecord {
	sent: SeenRequest[];
	sockets: number;
	/** What the run was, when it sent nothing by its end and must never (see `expectSilent`). */
	silent?: string;
}

export interface SweepService {
	/** A new run: its number and the address its credentials point at, answered by `answer` (default: the service's). */
	newRun(answer?: Answer): { run: number; url: string };
	/** What reached the service for `run` so far. */
	recordOf(run: number): RunRecord;
	/** `run` sent nothing and must never: a request of it that comes later is a failure all the same (`spokeLate`). */
	expectSilent(run: number, what: string): void;
	/**
	 * Waits until every connection to the service has ended (or 2 s), then answers what broke the
	 * promises above: runs that had to stay silent and were heard later, and requests that carried
	 * no run's address (the node built an address of its own; the sweep cannot tell whose it was).
	 */
	spokeLate(): Promise<string[]>;
	close(): Promise<void>;
}

const RUN_PATH = /^\/run-(\d+)(?=[/?]|$)/;

/** The run a path is addressed to, and the path the service answers (the run's part taken off). */
function addressedTo(url: string): { run: number; url: string } | undefined {
	const match = RUN_PATH.exec(url);
	return match ? { run: Number(match[1]), url: url.slice(match[0].length) || '/' } : undefined;
}

/** A sweep's service answering with `answer` (each WebSocket is accepted and closed at once). */
export async function startSweepService(answer: Answer): Promise<SweepService> {
	const runs = new Map<number, RunRecord & { answer: Answer }>();
	const strays: string[] = [];
	let last = 0;
	const recordOf = (run: number) => runs.get(run) ?? runs.set(run, { sent: [], sockets: 0, answer }).get(run)!;
	const service = await startHostileService(
		(req, res) => {
			const to = addressedTo(req.url);
			if (!to) strays.push(`${req.method} ${req.url}`);
			const record = to ? recordOf(to.run) : undefined;
			const seen = to ? { ...req, url: to.url } : req;
			record?.sent.push(seen);
			(record?.answer ?? answer)(seen, res);
		},
		{
			onSocket: (socket, url) => {
				const to = addressedTo(url);
				if (to) recordOf(to.run).sockets++;
				else strays.push(`WebSocket ${url}`);
				socket.close();
			},
		},
	);
	return {
		newRun(runAnswer = answer) {
			// The record is the run's: the service's own log of every request is not needed.
			service.seen.length = 0;
			const run = ++last;
			runs.set(run, { sent: [], sockets: 0, answer: runAnswer });
			return { run, url: `${service.url}/run-${run}` };
		},
		recordOf,
		expectSilent(run, what) {
			recordOf(run).silent = what;
		},
		async spokeLate() {
			service.server.closeIdleConnections();
			for (let waited = 0; (await service.openConnections()) > 0 && waited < 2000; waited += 10) await delay(10);
			const late = [...runs.values()].filter((record) => record.silent !== undefined && (record.sent.length > 0 || record.sockets > 0));
			return [
				...late.map(
					({ silent, sent, sockets }) => `${silent}: ${sent.map((r) => `${r.method} ${r.url}`).join(', ')} (${sockets} WebSockets)`,
				),
				...strays.map((stray) => `no run's address: ${stray}`),
			];
		},
		close: () => service.close(),
	};
}
