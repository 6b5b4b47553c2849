/**
 * The fault replay's settings, read from the environment (the same in every file of the replay),
 * and the package's bounds as the replay shortens them.
 */
import { SECOND_LOOK_MS } from '../../../../nodes/HostCloud/helpers/ownership/lost-submit';
import { RETRY_DELAYS_MS } from '../../../../nodes/shared/transport/retry';
import type { Exchange, SocketFault } from '../../../support/fault-proxy';
import { SWEEP_WAIT_ROOM_MS } from '../../../support/fault-meaning-oracle';

export const FULL = process.env.FAULT_REPLAY === 'full';
/** Places of one answer a structural fault goes to (the most telling keys first). */
export const TARGETS = Number(process.env.FAULT_TARGETS ?? (FULL ? 6 : 4));
export const SAMPLE_PATHS = Number(process.env.FAULT_SAMPLE_PATHS ?? 24);
/** v2's paths in the sample (issue 45), drawn after the others so the v1 sample stays the one its seed gave. */
export const SAMPLE_V2_PATHS = Number(process.env.FAULT_SAMPLE_V2_PATHS ?? 4);
export const SAMPLE_FAULTS = Number(process.env.FAULT_SAMPLE_FAULTS ?? 2);
/** Faults of meaning per path in the sample (issue 43), beside the SAMPLE_FAULTS of time, size and shape. */
export const SAMPLE_MEANING = Number(process.env.FAULT_SAMPLE_MEANING ?? 2);
/** The job socket's faults: armed for the run's socket, not for a request (index -1). */
export const SOCKET_FAULTS: SocketFault[] = [
	{ kind: 'socket-flood' },
	{ kind: 'socket-close' },
	{ kind: 'socket-foreign-prompt', promptId: '0f0e0d0c-0000-4000-8000-0000000000cc', filename: 'another_run_00001_.png' },
];
export const PATH_FILTER = process.env.FAULT_PATHS ? new RegExp(process.env.FAULT_PATHS) : undefined;
export const KIND_FILTER = process.env.FAULT_KINDS ? new RegExp(process.env.FAULT_KINDS) : undefined;

// The package's bounds, shortened: 60 s of silence per request → 400 ms; a read with its retries
// (3 minutes) → READ_MS. `readMs` is read by the transport that governs every exchange (issue 34).
export const MS = 400;
export const READ_MS = 3 * MS;
/** Timers on a loaded 2-core machine run late by this much (a silence of 634 ms against the 400 ms limit, beside two CPU-bound processes at load 10). */
export const TOLERANCE_MS = 500;
/** The retry pauses, scaled down (1/100; restored after): a run's bound stays short, and a retry's pause does not pass for silence. */
export const SCALED_RETRY = RETRY_DELAYS_MS.map((ms) => ms / 100);
export const MAX_WAIT_MS = 1_200;
// The oracle's room for a wait the service asks is what the transport leaves: the read limit less one idle limit.
if (SWEEP_WAIT_ROOM_MS !== READ_MS - MS) throw new Error('SWEEP_WAIT_ROOM_MS must be READ_MS - MS');
export const KIB64 = 64 * 1024;
/**
 * What a submit whose answer was lost may add (docs/host-cloud.md, "When a submit's answer is
 * lost"): two looks for its job 2 s apart, and Execute's last look as its run ends, each look a
 * queue read (and a history read on a self-hosted server) made once, within a request's limit.
 */
export const LOST_SUBMIT_MS = 2 * SECOND_LOOK_MS + 5 * MS;
export const isSubmit = (exchange: Exchange | undefined) =>
	exchange?.method === 'POST' && /\/(api\/)?prompt$|\/api\/v2\/jobs$/.test(exchange.path);
