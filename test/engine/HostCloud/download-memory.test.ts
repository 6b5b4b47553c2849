/**
 * Host Cloud's Download Files keeps a large output file out of memory on both servers: streamed
 * from the cloud's signed storage URL, and from a self-hosted server's /api/view (behind a reverse
 * proxy that wants the credential's header) into n8n binary data on disk.
 */
import { runBenchScript } from '../../../bench/support';

const MIB = 256;

// Memory is measured in a fresh process with the simulator in another one (the benchmark's
// script), as for the music stream: in a shared Jest worker, V8's heap headroom (tens of MB) drowns
// the signal, so the file is 256 MiB and holding it would show far above the limit.
it.each([
	{ server: 'the cloud', flavour: 'cloud', figure: 'binary_download' },
	{ server: 'a self-hosted server', flavour: 'self-hosted', figure: 'binary_download_self_hosted' },
])(
	'an output file of 256 MiB from $server arrives whole and grows the n8n process by well under half of that (fresh process)',
	({ flavour, figure }) => {
		const figures = runBenchScript(
			'binary-download.ts',
			{ BENCH_FLAVOUR: flavour, BENCH_DOWNLOAD_MIB: String(MIB), N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' },
			90_000,
		);
		expect(figures[`${figure}_file_mib`]).toBe(MIB);
		expect(figures[`${figure}_peak_rss_delta_mib`]).toBeLessThan(MIB / 2);
	},
	120_000,
);
