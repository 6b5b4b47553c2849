/**
 * `npm run simulator -- [--port N] [--api-key K] [--access-token T] [--parallel-limit N] [--node-ms N] [--quiet]`
 * Prints one JSON line with the URLs and secrets to use, then a readable line per request.
 */
import { startSimulator, type SimulatorOptions } from './server';

function parseArgs(argv: string[]): SimulatorOptions & { quiet?: boolean } {
	const options: SimulatorOptions & { quiet?: boolean } = {};
	const numberFlag = (flag: string, value: string | undefined): number => {
		const n = Number(value);
		if (value === undefined || !Number.isFinite(n)) throw new Error(`${flag} needs a number`);
		return n;
	};
	for (let i = 0; i < argv.length; i++) {
		const flag = argv[i];
		const value = argv[i + 1];
		switch (flag) {
			case '--port':
				options.port = numberFlag(flag, value);
				i++;
				break;
			case '--host':
				options.host = value;
				i++;
				break;
			case '--api-key':
				options.apiKey = value;
				i++;
				break;
			case '--access-token':
				options.accessToken = value;
				i++;
				break;
			case '--parallel-limit':
				options.parallelLimit = numberFlag(flag, value);
				i++;
				break;
			case '--node-ms':
				options.nodeMs = numberFlag(flag, value);
				i++;
				break;
			case '--quiet':
				options.quiet = true;
				break;
			case '--help':
				process.stdout.write(
					'Usage: npm run simulator -- [--port N] [--host H] [--api-key K] [--access-token T] [--parallel-limit N] [--node-ms N] [--quiet]\n',
				);
				process.exit(0);
				break;
			default:
				throw new Error(`Unknown option ${flag} (try --help)`);
		}
	}
	return options;
}

async function main(): Promise<void> {
	const { quiet, ...options } = parseArgs(process.argv.slice(2));
	const stamp = () => new Date().toISOString().slice(11, 23);
	const sim = await startSimulator({
		...options,
		log: quiet ? undefined : (line) => process.stderr.write(`${stamp()} ${line}\n`),
	});
	process.stdout.write(
		`${JSON.stringify({
			baseUrl: sim.baseUrl,
			wsBaseUrl: sim.wsBaseUrl,
			registryUrl: sim.registryUrl,
			storageUrl: sim.storageUrl,
			apiKey: sim.apiKey,
			accessToken: sim.accessToken,
		})}\n`,
	);
	const stop = () => void sim.close().then(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error: Error) => {
	process.stderr.write(`simulator: ${error.message}\n`);
	process.exit(1);
});
