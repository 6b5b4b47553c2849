/**
 * Every path, every fault (issue 34): the replaying fault injector. Each path of the package
 * (test/support/fault-paths.ts) runs once cleanly against the simulator through a loopback fault
 * proxy (test/support/fault-proxy.ts), which records its requests; the path is then replayed with
 * each fault at each request index: silence after the headers or mid-body for a 2xx, 4xx and 5xx
 * (a silent endpoint stays silent for the retries), a cut body, 2 MiB in a string or key, names
 * every object carries as a key or enum value, wrong types, other schemes and markup in addresses
 * and in `Location`, a redirect to itself, a cut NDJSON line.
 *
 * Oracle (judge.ts): judgeShown (test/support/hostile-structures.ts: uncaught and raw error texts,
 * secrets in any encoding, path segments) plus: the item ends within its bound; no request waits in
 * silence over the request limit, nor a read with its retries over the read limit; no more than 64 KiB of a
 * 2 MiB text in an item; an answer that is not what the spec says gives no success unless it was
 * asked again; refused input sends nothing; an address passed on is an absolute http(s) URL without
 * markup; no file passed on shorter than served, no music take with a hole passed as success; a
 * status read of an unknown id is not "completed"; a tool neither lists nor cancels a job it did not start.
 *
 * v2 (issue 45): Host Cloud on the v2 jobs API is a world of its own (the v2 simulator's cloud
 * surface behind the proxy), with its own rules: never a second job for one item nor a second asset
 * for one upload, and every request the package sends within the contract (test/support/v2-contract.ts).
 *
 * The replay runs as several test files (test/engine/sweeps/fault-replay-*.test.ts), one a part
 * (sample.ts): they run side by side, each with its own worlds, and together replay what one file did.
 * `npm test` runs a seeded sample (seed in the test names, BAD_INPUT_SEED replays it; FAULT_SAMPLE_V2_PATHS
 * of v2's paths, drawn from a sequence of their own so the v1 sample stays what its seed gave);
 * `FAULT_REPLAY=full` (in `npm run reliability`) every path × request index × fault.
 * `FAULT_PATHS=<regex>` narrows the paths, `FAULT_KINDS=<regex>` the faults; `FAULT_DEBUG=1` prints
 * the requests of each run that broke a rule (times from its first request).
 */
import type { Flavour } from '../../../support/fault-paths';
import { SEED } from '../../../support/hostile-structures';
import { figures, recordFigures } from './figures';
import { replayPath, skipDraws } from './replay-path';
import { ALL_PATHS, drawsBefore, pathsOf, type Part } from './sample';
import { FULL } from './settings';
import { useShortBounds, useWorlds } from './worlds';

const TITLES: Record<Part, string> = {
	'judged-clean': 'the v1 paths judged by their clean run',
	'v1-first-half': "v1's other paths, first half",
	'v1-second-half': "v1's other paths, second half",
	v2: "v2's paths",
};

/** The tests of one part of the replay: a test a path. */
export function describeSweep(part: Part): void {
	const paths = pathsOf(part);
	const flavours: Flavour[] = part === 'v2' ? ['v2'] : ['cloud', 'self-hosted'];
	useShortBounds();
	const worlds = useWorlds(flavours);
	figures.paths = ALL_PATHS.length;
	afterAll(() => recordFigures(part));
	// The sample's later paths draw what they drew when one file ran every path before them.
	const before = paths.length > 0 ? drawsBefore(part) : [];
	if (before.length > 0) beforeAll(async () => await skipDraws(worlds, before), 180_000);
	describe(`fault replay, ${FULL ? 'full' : 'seeded sample'}: ${TITLES[part]} (seed ${SEED}; replay with BAD_INPUT_SEED=${SEED})`, () => {
		if (paths.length === 0) test.skip('no path of this part is named by FAULT_PATHS', () => undefined);
		else
			test.each(paths.map((path) => [path.name, path] as const))(
				'%s',
				async (_name, path) => {
					expect(await replayPath(worlds[path.flavour]!, path)).toEqual([]);
				},
				FULL ? 3_600_000 : 60_000,
			);
	});
}
