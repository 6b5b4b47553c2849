/**
 * The replaying fault injector (fault-replay/sweep.ts), its part judged by the clean run alone: the
 * v1 paths of refused input, unknown ids, someone else's job in the queue, the memory floods and
 * scope (a full run replays the unknown-id and foreign-job paths with every fault too).
 */
import { describeSweep } from './fault-replay/sweep';

describeSweep('judged-clean');
