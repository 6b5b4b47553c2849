/**
 * The replaying fault injector (fault-replay/sweep.ts), Host Cloud on the v2 jobs API (issue 45):
 * the paths v2 refuses by name and the unknown job, then v2's seeded sample (a full run: every v2
 * path).
 */
import { describeSweep } from './fault-replay/sweep';

describeSweep('v2');
