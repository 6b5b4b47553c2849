/**
 * The replaying fault injector (fault-replay/sweep.ts), v1's paths that need a replay: the second
 * half of the seeded sample in its drawn order (a full run: of every such path). Its paths draw
 * their faults after the first half's (fault-replay/sample.ts).
 */
import { describeSweep } from './fault-replay/sweep';

describeSweep('v1-second-half');
