/**
 * The contract between server.ts and the service modules (cloud, registry, media proxy): the
 * options they read and the context they are created with. It lives apart from server.ts so the
 * service modules never import the server that imports them.
 */
import type { Account, Counters, Faults, Router } from './core';
import type { SignedStorage } from './storage';

/** Which server answers at the base URL: the Host Cloud API, or a self-hosted (ComfyUI-compatible) graph server. */
export type Flavour = 'cloud' | 'self-hosted';

/** What the reverse proxy in front of a self-hosted server wants on every request: a header, or HTTP basic credentials. */
export type ProxyAuth = { header: string; value: string } | { username: string; password: string };

export interface SimulatorOptions {
	/** The server at the base URL (default cloud); the registry, media proxy and storage hosts are the same for both. */
	flavour?: Flavour;
	/** Self-hosted only: requests without this header or these credentials get 401 (no check when absent). */
	proxyAuth?: ProxyAuth;
	host?: string;
	/** Port of the cloud API; 0 (default) picks a free one. The other two hosts always pick free ports. */
	port?: number;
	apiKey?: string;
	accessToken?: string;
	/** Settings of the default account. */
	parallelLimit?: number;
	credits?: number;
	subscriptionActive?: boolean;
	/** More accounts (for "other users" tests); missing fields get generated values. */
	extraAccounts?: Array<Partial<Account> & { id: string }>;
	/** Cloud: how long each node of a cloud job takes, in ms. */
	nodeMs?: number;
	/** Cloud: whether GET /api/jobs/{id} returns `outputs` once terminal. */
	jobsEndpointOutputs?: boolean;
	/** Cloud: largest accepted upload, in bytes. */
	uploadLimitBytes?: number;
	/** Cloud: extra messages for other jobs of the same user interleaved on every connection. */
	interleaveOtherJobs?: boolean;
	/** Media proxy: time between image task status changes, in ms. */
	imageStepMs?: number;
	/** Media proxy: time between video task state changes, in ms. */
	videoStepMs?: number;
	/** Media proxy: attempts and first back-off of notification deliveries answered with a non-2xx. */
	notifyAttempts?: number;
	notifyBackoffMs?: number;
	/** Lifetime of signed storage URLs, in ms. */
	signedUrlTtlMs?: number;
	/** Readable request log lines go here (the CLI prints them); silent when absent. */
	log?: (line: string) => void;
}

export type ResolvedOptions = Required<Omit<SimulatorOptions, 'log' | 'extraAccounts' | 'port' | 'proxyAuth'>> & {
	port: number;
	proxyAuth?: ProxyAuth;
	log?: (line: string) => void;
};

export interface SimulatorUrls {
	baseUrl: string;
	wsBaseUrl: string;
	registryUrl: string;
	storageUrl: string;
}

/** What a service module gets: routers to register on, shared state, and the storage host. */
export interface AreaContext {
	/** Routes of the cloud host ({base_url}). */
	cloudRouter: Router;
	/** Routes of the registry host ({registry_url}), media proxy endpoints included. */
	registryRouter: Router;
	storage: SignedStorage;
	options: ResolvedOptions;
	faults: Faults;
	counters: Counters;
	accounts: Account[];
	urls: () => SimulatorUrls;
	accountByApiKey(key: string | undefined): Account | undefined;
	accountByToken(token: string | undefined): Account | undefined;
	log(line: string): void;
}
