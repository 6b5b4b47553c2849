/**
 * The contract between server.ts and the service modules (cloud, registry, media proxy): the
 * options they read and the context they are created with. It lives apart from server.ts so the
 * service modules never import the server that imports them.
 */
import type { Account, Counters, Faults, Router } from './core';
import type { SignedStorage } from './storage';

/** Which graph server answers at the base URL: the Host Cloud API, or a self-hosted (ComfyUI-compatible) one. */
export type Flavour = 'cloud' | 'self-hosted';

/** Where a v2 server runs: the cloud, a deployment (behind a gateway), or a self-hosted proxy. */
export type V2Surface = 'cloud' | 'deployment' | 'self-hosted';

/** The v2 flavour's settings (v2/area.ts). Every limit is off when absent. */
export interface V2Options {
	/** Default cloud: bearer keys and 402 on cloud and deployment; bytes served directly and an optional token on self-hosted. */
	surface?: V2Surface;
	/** A path the server is mounted under (a deployment behind a gateway: '/deployment/dep-1'); baseUrl and job links carry it. */
	mountPrefix?: string;
	/** 'not-implemented': GET .../events answers 501 not_implemented (default on). */
	events?: 'on' | 'not-implemented';
	/** Concurrent event streams per account; one more gets 429 too_many_streams. */
	maxStreams?: number;
	/** Unfinished jobs per account; a submit beyond gets 429 queue_full. */
	queueLimit?: number;
	/** Deployment only: submits in the first this-many ms after start (or reset) get 429 deployment_not_ready. */
	notReadyForMs?: number;
	/** Job reads (GET a job or its workflow) per account within a Retry-After window; one more gets 429 rate_limited. */
	rateLimitAfter?: number;
	/** The Retry-After of every 429 (default 1). */
	retryAfterSeconds?: number;
	/** Self-hosted: the static bearer token every request needs (no auth when absent). */
	selfHostedToken?: string;
}

/** The v2 flavour's fault switches, beside the generic ones (each consumed as it fires). */
export interface V2Faults {
	/** The next `count` submits create their job, then lose the answer: the connection reset, or 500 upstream_error. */
	v2SubmitLost?: { count: number; as: 'reset' | 'upstream_error' };
	/** The next `count` uploads mint their asset, then lose the answer: the connection reset, or 500 upstream_error. */
	v2UploadLost?: { count: number; as: 'reset' | 'upstream_error' };
	/** The next event stream opened is cut (connection destroyed) after `afterEvents` events. */
	v2DropStream?: { afterEvents: number };
	/** The next submitted job fails at this node (its last when absent): job.error with node_id and class_type. */
	v2FailNextJob?: { nodeId?: string; message?: string };
	/** The next submitted job ends `expired` once `afterNodes` of its nodes have run. */
	v2ExpireNextJob?: { afterNodes: number };
}

/** What the reverse proxy in front of a self-hosted server wants on every request: a header, or HTTP basic credentials. */
export type ProxyAuth = { header: string; value: string } | { username: string; password: string };

export interface SimulatorOptions {
	/** The server at the base URL (default cloud); the registry, media proxy and storage hosts are the same for all. */
	flavour?: Flavour;
	/** The v2 flavour's settings (flavour 'v2' only). */
	v2?: V2Options;
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

/** Every option with its value, whichever the flavour (what the areas read). */
export type ResolvedOptions = Required<Omit<SimulatorOptions, 'log' | 'extraAccounts' | 'port' | 'proxyAuth' | 'v2' | 'flavour'>> & {
	flavour: Flavour | 'v2';
	port: number;
	v2: V2Options & Required<Pick<V2Options, 'surface' | 'mountPrefix' | 'events' | 'retryAfterSeconds'>>;
	proxyAuth?: ProxyAuth;
	log?: (line: string) => void;
};

/** The options of the v2 flavour: the Comfy API v2 at the base URL (`v2` says which surface and limits). */
export type V2SimulatorOptions = Omit<SimulatorOptions, 'flavour'> & { flavour: 'v2' };

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
	faults: Faults & V2Faults;
	counters: Counters;
	accounts: Account[];
	urls: () => SimulatorUrls;
	accountByApiKey(key: string | undefined): Account | undefined;
	accountByToken(token: string | undefined): Account | undefined;
	log(line: string): void;
}
