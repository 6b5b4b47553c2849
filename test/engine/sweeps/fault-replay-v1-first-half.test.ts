/**
 * The replaying fault injector (fault-replay/sweep.ts), v1's paths that need a replay (Host Cloud on
 * the cloud and self-hosted, Host Media, Host Registry, the triggers, the editor's calls and the
 * credential tests): the first half of the seeded sample in its drawn order (a full run: of every
 * such path).
 */
import { describeSweep } from './fault-replay/sweep';

describeSweep('v1-first-half');
