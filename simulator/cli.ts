/**
 * `npm run simulator -- [--flavour cloud|self-hosted|v2] [--surface cloud|deployment|self-hosted] [--port N] [--api-key K] [--access-token T] [--parallel-limit N] [--node-ms N]
 * [--proxy-header "Name: value" | --proxy-basic user:password] [--quiet]`
 * Prints one JSON line with the URLs and secrets to use, then a readable line per request.
 */
import { type Flavour, startSimulator, type Simulator, type SimulatorOptions, type V2Simulator, type V2SimulatorOptions } from './server';

type CliOptions = Omit<SimulatorOptions, 'flavour'> & { flavour?: Flavour | 'v2'; quiet?: boolean };

const USAGE =
	'Usage: npm run simulator -- [--flavour cloud|self-hosted|v2] [--surface cloud|deployment|self-hosted] [--port N] [--host H] [--api-key K] [--access-token T] ' +
	'[--parallel-limit N] [--node-ms N] [--proxy-header "Name: value" | --proxy-basic user:password] [--quiet]\n' +
	'  --flavour self-hosted   a ComfyUI-compatible server at the base URL instead of the cloud API\n' +
	'  --flavour v2            the Comfy API v2 at the base URL; --surface says where it runs (default cloud)\n' +
	'  --proxy-header, --proxy-basic   (self-hosted) a reverse proxy in front of it that wants this header or these credentials\n';

function needValue(flag: string, value: string | undefined): string {
	if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value`);
	return value;
}

function parseArgs(argv: string[]): CliOptions {
	const options: CliOptions = {};
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
			case '--flavour': {
				const flavour = needValue(flag, value);
				if (flavour !== 'cloud' && flavour !== 'self-hosted' && flavour !== 'v2') {
					throw new Error(`--flavour is cloud, self-hosted or v2, not '${flavour}'`);
				}
				options.flavour = flavour;
				i++;
				break;
			}
			case '--surface': {
				const surface = needValue(flag, value);
				if (surface !== 'cloud' && surface !== 'deployment' && surface !== 'self-hosted') {
					throw new Error(`--surface is cloud, deployment or self-hosted, not '${surface}'`);
				}
				options.v2 = { ...options.v2, surface };
				i++;
				break;
			}
			case '--proxy-header': {
				const m = /^([^:\s]+):\s*(.+)$/.exec(needValue(flag, value));
				if (!m) throw new Error('--proxy-header needs "Name: value"');
				options.proxyAuth = { header: m[1], value: m[2] };
				i++;
				break;
			}
			case '--proxy-basic': {
				const text = needValue(flag, value);
				const colon = text.indexOf(':');
				if (colon <= 0) throw new Error('--proxy-basic needs user:password');
				options.proxyAuth = { username: text.slice(0, colon), password: text.slice(colon + 1) };
				i++;
				break;
			}
			case '--quiet':
				options.quiet = true;
				break;
			case '--help':
				process.stdout.write(USAGE);
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
	const log = quiet ? undefined : (line: string) => process.stderr.write(`${stamp()} ${line}\n`);
	const sim =
		options.flavour === 'v2'
			? await startSimulator({ ...(options as V2SimulatorOptions), log })
			: await startSimulator({ ...(options as SimulatorOptions), log });
	process.stdout.write(`${JSON.stringify(banner(sim))}\n`);
	const stop = () => void sim.close().then(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

/** What a user needs to connect: for the self-hosted server its URL (no key) and the proxy's credentials, if any. */
function banner(sim: Simulator | V2Simulator): Record<string, unknown> {
	const urls = { baseUrl: sim.baseUrl, wsBaseUrl: sim.wsBaseUrl, registryUrl: sim.registryUrl, storageUrl: sim.storageUrl };
	if (sim.flavour === 'v2') {
		const { surface, selfHostedToken } = sim.options.v2;
		const key = surface === 'self-hosted' ? (selfHostedToken === undefined ? {} : { token: selfHostedToken }) : { apiKey: sim.apiKey };
		return { flavour: 'v2', surface, baseUrl: sim.baseUrl, storageUrl: sim.storageUrl, ...key };
	}
	if (sim.flavour === 'cloud') return { ...urls, apiKey: sim.apiKey, accessToken: sim.accessToken };
	const proxy = sim.options.proxyAuth;
	return {
		flavour: sim.flavour,
		...urls,
		wsUrl: `${sim.wsBaseUrl}/ws`,
		accessToken: sim.accessToken,
		...(proxy ? { proxyAuth: proxy } : {}),
	};
}

main().catch((error: Error) => {
	process.stderr.write(`simulator: ${error.message}\n`);
	process.exit(1);
});
