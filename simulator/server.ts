/**
 * Starts the simulator: three loopback listeners standing in for the three hosts of the real
 * service (cloud API + WebSocket, registry + proxy, signed-URL storage). With `flavour:
 * 'self-hosted'` the first one is a ComfyUI-compatible server instead (self-hosted/area.ts), with `flavour:
 * 'v2'` the Comfy API v2 (v2/area.ts; `options.v2` says which surface and limits). Tests call
 * `startSimulator(options)` in-process; `npm run simulator` calls it from cli.ts.
 *
 * This file wires the areas (cloud/, self-hosted/ or v2/, registry/, media/) onto shared/'s plumbing;
 * it and cli.ts are the only files that may import every folder.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createCloudArea, type CloudArea } from './cloud/area';
import type {
	AreaContext,
	Flavour,
	ResolvedOptions,
	SimulatorOptions,
	SimulatorUrls,
	V2Faults,
	V2SimulatorOptions,
} from './shared/context';
import {
	type Account,
	type Counters,
	type Faults,
	type LoggedRequest,
	type SimRequest,
	Router,
	delay,
	malformedJsonResponses,
	maskHeaders,
	maskSecret,
	sendError,
	sendSlowDown,
	takesSlowDown,
} from './shared/core';
import { createProxyArea, type ProxyArea } from './media/area';
import { createRegistryArea, type RegistryArea } from './registry/area';
import { createSelfHostedArea } from './self-hosted/area';
import { proxySecretHeaders } from './self-hosted/gate';
import { SignedStorage } from './shared/storage';
import { createV2Area, type V2Area, type V2View } from './v2/area';
import { sendRefusal } from './v2/kit';

export type {
	Flavour,
	ProxyAuth,
	ResolvedOptions,
	SimulatorOptions,
	SimulatorUrls,
	V2Faults,
	V2Options,
	V2SimulatorOptions,
} from './shared/context';
export type { V2View } from './v2/area';

export interface Simulator extends SimulatorUrls {
	/** The server at baseUrl: the cloud API, or a self-hosted (ComfyUI-compatible) server. */
	flavour: Flavour;
	apiKey: string;
	accessToken: string;
	options: ResolvedOptions & { flavour: Flavour };
	/** Flip these at run time to inject faults; reset() clears them. */
	faults: Faults & V2Faults;
	requests: LoggedRequest[];
	counters: Counters;
	accounts: Account[];
	storage: SignedStorage;
	/** The area at baseUrl, whichever the flavour (the self-hosted one is a SelfHostedArea, with its history). */
	cloud: CloudArea;
	registry: RegistryArea;
	proxy: ProxyArea;
	/** Requests that reached a host, optionally filtered by method and path prefix. */
	requestsTo(method?: string, pathPrefix?: string): LoggedRequest[];
	/** Forget jobs, registry data, tasks, uploads, the log, counters and faults. */
	reset(): void;
	close(): Promise<void>;
}

/** A simulator of the v2 flavour: the Comfy API v2 at baseUrl (which carries any mount prefix). */
export interface V2Simulator extends Omit<Simulator, 'flavour' | 'options'> {
	flavour: 'v2';
	options: ResolvedOptions & { flavour: 'v2' };
	/** Its jobs, assets and exchanges, and its test hooks. */
	v2: V2View;
}

const BODY_LOG_LIMIT = 4096;

function resolveOptions(options: SimulatorOptions | V2SimulatorOptions): ResolvedOptions {
	return {
		flavour: options.flavour ?? 'cloud',
		// Kept as a key even when absent, so a test that sets it at run time has it cleared after.
		proxyAuth: options.proxyAuth,
		host: options.host ?? '127.0.0.1',
		port: options.port ?? 0,
		apiKey: options.apiKey ?? 'sim-api-key',
		accessToken: options.accessToken ?? 'sim-access-token',
		parallelLimit: options.parallelLimit ?? 3,
		credits: options.credits ?? 1000,
		subscriptionActive: options.subscriptionActive ?? true,
		nodeMs: options.nodeMs ?? 20,
		jobsEndpointOutputs: options.jobsEndpointOutputs ?? true,
		uploadLimitBytes: options.uploadLimitBytes ?? 20 * 1024 * 1024,
		interleaveOtherJobs: options.interleaveOtherJobs ?? true,
		imageStepMs: options.imageStepMs ?? 50,
		videoStepMs: options.videoStepMs ?? 50,
		notifyAttempts: options.notifyAttempts ?? 8,
		notifyBackoffMs: options.notifyBackoffMs ?? 100,
		signedUrlTtlMs: options.signedUrlTtlMs ?? 15 * 60 * 1000,
		v2: {
			...options.v2,
			surface: options.v2?.surface ?? 'cloud',
			mountPrefix: (options.v2?.mountPrefix ?? '').replace(/\/+$/, ''),
			events: options.v2?.events ?? 'on',
			retryAfterSeconds: options.v2?.retryAfterSeconds ?? 1,
		},
		log: options.log,
	};
}

function makeAccounts(o: ResolvedOptions, extra: SimulatorOptions['extraAccounts'] = []): Account[] {
	const main: Account = {
		id: 'user-1',
		name: 'Sim User',
		email: 'sim@example.com',
		apiKey: o.apiKey,
		accessToken: o.accessToken,
		parallelLimit: o.parallelLimit,
		credits: o.credits,
		subscriptionActive: o.subscriptionActive,
		repohostToken: 'sim-repohost-token',
		repohostUser: 'sim-user',
	};
	return [
		main,
		...extra.map((a, i) => ({
			name: `Other User ${i + 1}`,
			email: `other${i + 1}@example.com`,
			apiKey: `sim-api-key-${a.id}`,
			accessToken: `sim-access-token-${a.id}`,
			parallelLimit: 3,
			credits: 1000,
			subscriptionActive: true,
			repohostToken: `sim-repohost-token-${a.id}`,
			repohostUser: a.id,
			...a,
		})),
	];
}

function listen(server: Server, host: string, port: number): Promise<number> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
	});
}

function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks)));
		req.on('error', reject);
	});
}

function summariseBody(req: IncomingMessage, body: Buffer): string {
	const type = String(req.headers['content-type'] ?? '');
	if (body.length === 0) return '';
	if (/json|text|x-www-form-urlencoded/.test(type) || type === '') {
		const text = body.toString('utf8');
		return text.length > BODY_LOG_LIMIT ? `${text.slice(0, BODY_LOG_LIMIT)}…(${text.length} chars)` : text;
	}
	return `<${type.split(';')[0]} ${body.length} bytes>`;
}

/** Body fields that carry a secret by definition, whether or not the simulator knows its value. */
const SECRET_BODY_FIELDS = /("(?:personal_access_token|REPOHOST_TOKEN|api_key_host_org|api_key_comfy_org)"\s*:\s*")((?:[^"\\]|\\.)*)"/g;

/** Secrets never sit in the log in clear: the accounts' own, and any value of a secret body field (a wrong token may be someone's real one). */
function maskSecrets(text: string, accounts: Account[]): string {
	let out = text.replace(SECRET_BODY_FIELDS, (_match, field: string, value: string) => `${field}${maskSecret(value)}"`);
	for (const account of accounts) {
		for (const secret of [account.apiKey, account.accessToken, account.repohostToken]) {
			if (secret) out = out.split(secret).join(maskSecret(secret));
		}
	}
	return out;
}

/** Which random 5xx of a chaos run a GET may get: job status reads and file lookups (v2: job reads and asset content, under any mount prefix). */
function chaosHttpKind(path: string): 'status5xx' | 'view5xx' | undefined {
	if (/^\/api\/job\/[^/]+\/status$/.test(path) || /\/api\/v2\/jobs\/[^/]+$/.test(path)) return 'status5xx';
	return path === '/api/view' || /\/api\/v2\/assets\/[^/]+\/content$/.test(path) ? 'view5xx' : undefined;
}

function matchesPrefix(path: string, prefix?: string): boolean {
	return prefix === undefined || path.startsWith(prefix);
}

export function startSimulator(options: V2SimulatorOptions): Promise<V2Simulator>;
export function startSimulator(options?: SimulatorOptions): Promise<Simulator>;
export async function startSimulator(options: SimulatorOptions | V2SimulatorOptions = {}): Promise<Simulator | V2Simulator> {
	const o = resolveOptions(options);
	const faults: Faults & V2Faults = {};
	const counters: Counters = { storageCredentialAttempts: 0, wsConnections: 0, httpRequests: 0 };
	const requests: LoggedRequest[] = [];
	const accounts = makeAccounts(o, options.extraAccounts);
	const urls: SimulatorUrls = { baseUrl: '', wsBaseUrl: '', registryUrl: '', storageUrl: '' };
	const log = (line: string) => o.log?.(line);

	const cloudRouter = new Router();
	const registryRouter = new Router();
	const storage = new SignedStorage(() => urls.storageUrl, faults, counters, o.signedUrlTtlMs);

	const ctx: AreaContext = {
		cloudRouter,
		registryRouter,
		storage,
		options: o,
		faults,
		counters,
		accounts,
		urls: () => urls,
		accountByApiKey: (key) => (key ? accounts.find((a) => a.apiKey === key) : undefined),
		accountByToken: (token) => (token ? accounts.find((a) => a.accessToken === token) : undefined),
		log,
	};

	const cloud = o.flavour === 'self-hosted' ? createSelfHostedArea(ctx) : o.flavour === 'v2' ? createV2Area(ctx) : createCloudArea(ctx);
	const registry = createRegistryArea(ctx);
	const proxy = createProxyArea(ctx);

	/** Shared front door: log, generic faults, routing. Area handlers never see the fault plumbing. */
	const frontDoor =
		(host: 'service' | 'storage', errorShape: 'cloud' | 'registry', route: (r: SimRequest, res: ServerResponse) => void | Promise<void>) =>
		async (req: IncomingMessage, res: ServerResponse) => {
			const url = new URL(req.url ?? '/', 'http://sim');
			const rawBody = await readBody(req).catch(() => Buffer.alloc(0));
			const entry: LoggedRequest = {
				at: Date.now(),
				host,
				method: req.method ?? 'GET',
				path: url.pathname,
				query: Object.fromEntries(url.searchParams),
				headers: maskHeaders(req.headers, proxySecretHeaders(o.proxyAuth)),
				body: maskSecrets(summariseBody(req, rawBody), accounts),
			};
			requests.push(entry);
			counters.httpRequests++;
			res.on('finish', () => {
				entry.status = res.statusCode;
				log(`${entry.method} ${host === 'storage' ? '[storage] ' : ''}${entry.path} → ${res.statusCode}`);
			});
			const simReq: SimRequest = {
				method: entry.method,
				path: url.pathname,
				query: url.searchParams,
				headers: req.headers,
				params: {},
				rawBody,
				incoming: req,
			};
			try {
				if (faults.slow && matchesPrefix(url.pathname, faults.slow.pathPrefix)) await delay(faults.slow.ms);
				if (takesSlowDown(faults.slowDown, entry.method, url.pathname)) return void sendSlowDown(res, faults.slowDown, errorShape);
				const burst = faults.http5xx;
				if (burst && burst.count > 0 && matchesPrefix(url.pathname, burst.pathPrefix)) {
					burst.count--;
					res.writeHead(burst.status ?? 503, { 'content-type': 'text/plain' });
					return void res.end('Service temporarily unavailable (injected fault)');
				}
				const chaosKind = host === 'service' && req.method === 'GET' ? chaosHttpKind(url.pathname) : undefined;
				if (chaosKind && faults.chaos?.roll(chaosKind)) {
					// v2 types every error (ErrorEnvelope): its 5xx is 500 upstream_error.
					if (o.flavour === 'v2')
						return sendRefusal(res, { status: 500, code: 'upstream_error', message: 'An upstream service failed (injected fault).' });
					res.writeHead(503, { 'content-type': 'text/plain' });
					return void res.end('Service temporarily unavailable (injected fault)');
				}
				const broken = faults.malformedJson;
				if (broken && broken.count > 0 && matchesPrefix(url.pathname, broken.pathPrefix)) {
					malformedJsonResponses.set(res, () => broken.count--);
				}
				await route(simReq, res);
			} catch (error) {
				log(`handler error on ${entry.method} ${entry.path}: ${(error as Error).stack ?? String(error)}`);
				if (!res.headersSent) sendError(res, 500, errorShape, 'internal_error', 'Internal server error');
				else res.destroy();
			}
		};

	const routeWith = (router: Router, shape: 'cloud' | 'registry') => (req: SimRequest, res: ServerResponse) => {
		const found = router.match(req.method, req.path);
		if (found === undefined) return sendError(res, 404, shape, 'not_found', `No route for ${req.method} ${req.path}`);
		if (found === 'method') return sendError(res, 405, shape, 'method_not_allowed', `${req.method} is not allowed on ${req.path}`);
		req.params = found.params;
		return found.handler(req, res);
	};

	const cloudRoutes = routeWith(cloudRouter, 'cloud');
	const cloudServer = createServer(
		frontDoor('service', 'cloud', (req, res) => ((cloud.admits?.(req, res) ?? true) ? cloudRoutes(req, res) : undefined)),
	);
	const registryServer = createServer(frontDoor('service', 'registry', routeWith(registryRouter, 'registry')));
	const storageServer = createServer(frontDoor('storage', 'registry', (req, res) => storage.handle(req, res)));
	for (const s of [cloudServer, registryServer, storageServer]) s.keepAliveTimeout = 5000;

	const cloudPort = await listen(cloudServer, o.host, o.port);
	const registryPort = await listen(registryServer, o.host, 0);
	const storagePort = await listen(storageServer, o.host, 0);
	o.port = cloudPort;
	const host = o.host.includes(':') ? `[${o.host}]` : o.host;
	// A v2 server mounted under a prefix (a deployment behind its gateway) has it in its base URL.
	urls.baseUrl = `http://${host}:${cloudPort}${o.flavour === 'v2' ? o.v2.mountPrefix : ''}`;
	urls.wsBaseUrl = `ws://${host}:${cloudPort}`;
	urls.registryUrl = `http://${host}:${registryPort}`;
	// "localhost" rather than the IP: the storage host is a different origin by name as well as port.
	urls.storageUrl = `http://${o.host === '127.0.0.1' ? 'localhost' : host}:${storagePort}`;
	cloud.attach(cloudServer);

	const sim: Omit<Simulator, 'flavour' | 'options'> & { flavour: Flavour | 'v2'; options: ResolvedOptions; v2?: V2View } = {
		...urls,
		flavour: o.flavour,
		apiKey: o.apiKey,
		accessToken: o.accessToken,
		options: o,
		faults,
		requests,
		counters,
		accounts,
		storage,
		cloud,
		registry,
		proxy,
		v2: o.flavour === 'v2' ? (cloud as V2Area).v2 : undefined,
		requestsTo(method, pathPrefix) {
			return requests.filter((r) => (!method || r.method === method) && matchesPrefix(r.path, pathPrefix));
		},
		reset() {
			requests.length = 0;
			counters.storageCredentialAttempts = 0;
			counters.wsConnections = 0;
			counters.httpRequests = 0;
			for (const key of Object.keys(faults)) delete faults[key as keyof Faults];
			storage.reset();
			cloud.reset();
			registry.reset();
			proxy.reset();
		},
		async close() {
			await Promise.all([cloud.close(), proxy.close()]);
			await Promise.all(
				[cloudServer, registryServer, storageServer].map(
					(s) =>
						new Promise<void>((resolve) => {
							s.close(() => resolve());
							s.closeAllConnections();
						}),
				),
			);
		},
	};
	// The overloads say which: the options' flavour is the simulator's.
	return sim as Simulator | V2Simulator;
}
