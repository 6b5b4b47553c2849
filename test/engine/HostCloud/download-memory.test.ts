/**
 * Host Cloud's Download Files keeps a large output file out of memory on both servers: streamed
 * from the cloud's signed storage URL, and from a self-hosted server's /api/view (behind a reverse
 * proxy that wants the credential's header) into n8n binary data on disk.
 */
import { runBenchScript } from '../../../bench/support';

const MIB = 64;

// Memory is measured in a fresh process with the simulator in another one (the benchmark's script,
// with --expose-gc): what the process still holds after forced collections while the file comes, at
// most. Garbage is not counted, so a busy machine cannot raise it (resident memory it could: that
// figure, and its goal for 512 MiB, are the bench's). Holding the file would show as up to 64 MiB.
// A sample each time 8 MiB more have come in (bench/support.ts): eight samples inside the transfer,
// however fast or slow the machine, where samples on a timer could all miss a fast one.
const WITH_GC = { NODE_OPTIONS: '--experimental-websocket --expose-gc', BENCH_RETAINED_EVERY_MIB: '8' };
it.each([
	{ server: 'the cloud', flavour: 'cloud', figure: 'binary_download' },
	{ server: 'a self-hosted server', flavour: 'self-hosted', figure: 'binary_download_self_hosted' },
])(
	'an output file of 64 MiB from $server arrives whole, the n8n process holding well under half of it at any time (fresh process)',
	({ flavour, figure }) => {
		const figures = runBenchScript(
			'binary-download.ts',
			{ ...WITH_GC, BENCH_FLAVOUR: flavour, BENCH_DOWNLOAD_MIB: String(MIB), N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' },
			240_000,
		);
		expect(figures[`${figure}_file_mib`]).toBe(MIB);
		expect(figures[`${figure}_retained_samples`]).toBeGreaterThanOrEqual(6);
		expect(figures[`${figure}_retained_mib_max`]).toBeLessThan(MIB / 2);
	},
	// Hang guards: the download takes seconds on a quiet machine.
	300_000,
);
