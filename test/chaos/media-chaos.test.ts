/**
 * Chaos (Host Media and Host Registry), through n8n's engine against the simulator:
 *  - 200 image and video tasks (upscale, relight, start-frame video) in Poll Until Finished while
 *    status reads are answered 503 or 429 or hang past the node's read timeout, some tasks never
 *    finish, and result downloads are cut short; half the items download their files;
 *  - text-to-music runs whose streams are cut in the middle of a line or of an audio chunk;
 *  - node versions published while the first upload to some archive URLs fails (503 or reset).
 * As in the Host Cloud chaos suite: every item comes back once, paired with its input, a finished
 * task with exactly its own files (byte for byte), a failed one with a clear error naming its task,
 * no cut file passed on as whole, no secret anywhere, nothing uncaught, nothing left open.
 *
 * Timeouts: a status read may take min(30 s, what is left of Max Wait), at least 1 s; no option
 * shortens it. With a Max Wait of 1.2 s a hung read therefore runs into Max Wait, and its item
 * fails as timed out (naming the task and saying the last check failed), never as a failed task.
 *
 * The seed is printed; `CHAOS_SEED=<n> npm run test:chaos` replays a run. Figures go to
 * bench/reliability.json (section `media_chaos`) when RELIABILITY_FIGURES=1.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { RETRY_DELAYS_MS } from '../../nodes/shared/transport/retry';
import { ChaosFaults, type ChaosKind, type ChaosRates } from '../../simulator/shared/chaos';
import { ToneWav } from '../../simulator/media/formats';
import { DEFAULT_PUBLISHING_TOKEN } from '../../simulator/registry/area';
import type { Simulator } from '../../simulator/server';
import { readBinary } from '../support/engine';
import { type ChaosFigures, catchUncaught, chaosSeed, expectSoundRun, handlesLeft, openHandles } from '../support/chaos-run';
import { useMediaEnv } from '../support/media';
import { REPOHOST_TOKEN, ZIP, archiveItem, locator, registryCredential, runRegistry } from '../support/registry-node';
import { recordReliability } from '../support/reliability';
import { findSecrets, runHaystacks } from '../support/secrets-audit';

const SEED = chaosSeed();
/** The smallest Max Wait that still leaves a healthy task several polls: 0.02 min, 1.2 s. */
const MAX_WAIT_MINUTES = 0.02;
const MAX_WAIT_MS = MAX_WAIT_MINUTES * 60_000;
const RATES: ChaosRates = {
	taskStatus5xx: 0.1,
	taskStatus429: 0.1,
	taskStatusTimeout: 0.01,
	taskNeverFinishes: 0.04,
	storageReset: 0.1,
	musicCutMidLine: 0.25,
	musicCutMidChunk: 0.25,
	upload5xx: 0.3,
	uploadReset: 0.3,
};
const MUSIC_RUNS = 40;
const VERSIONS = 30;

interface Figures extends ChaosFigures {
	tasks_run: number;
	[more: string]: unknown;
}

const env = useMediaEnv();
const figures: Record<string, Figures> = {};

beforeAll(() => {
	process.stdout.write(`\nChaos seed: ${SEED} (replay with CHAOS_SEED=${SEED})\n`);
});

afterAll(() => {
	recordReliability('media_chaos', { seed: SEED, rates: RATES, max_wait_ms: MAX_WAIT_MS, scenarios: figures });
});

/** Whether the faults were actually injected: a seed that draws none of a kind would prove nothing about it. */
function expectInjected(row: Figures): void {
	for (const [kind, n] of Object.entries(row.faults_injected)) expect({ kind, injected: n! > 0 }).toEqual({ kind, injected: true });
}

/**
 * Runs `body` with the chaos of `kinds` on; answers its value, the faults and what the run left
 * behind: uncaught errors, open handles, and each secret found in `audit()`'s haystacks.
 */
async function underChaos<T>(kinds: ChaosKind[], body: (chaos: ChaosFaults) => Promise<T>) {
	const rates = Object.fromEntries(kinds.map((kind) => [kind, RATES[kind]]));
	const chaos = new ChaosFaults(SEED, rates);
	const uncaught = catchUncaught();
	const before = openHandles();
	const started = Date.now();
	env.sim.faults.chaos = chaos;
	let value: T;
	try {
		value = await body(chaos);
	} finally {
		delete env.sim.faults.chaos;
	}
	const wall = (Date.now() - started) / 1000;
	const left = await handlesLeft(before);
	uncaught.stop();
	return {
		value,
		chaos,
		common: {
			faults_injected: chaos.injectedAtRate(),
			uncaught_errors: uncaught.errors.length,
			open_handles_left: Object.values(left).reduce((a, b) => a + b, 0),
			wall_seconds: wall,
		},
		left,
	};
}

/** Each secret of the credentials found in the items, the errors and the request log (none may be). */
function secretsIn(items: INodeExecutionData[], errors: unknown[] = []) {
	return findSecrets(runHaystacks({ items, errors, requests: env.sim.requests }), {
		'access token': env.sim.accessToken,
		'API key': env.sim.apiKey,
		'publishing token': DEFAULT_PUBLISHING_TOKEN,
		'code-hosting token': REPOHOST_TOKEN,
	});
}

function report(name: string, row: Figures): void {
	figures[name] = row;
	process.stdout.write(`Chaos ${name}: ${JSON.stringify(row)}\n`);
}

const pct = (accounted: number, total: number) => Math.round((accounted / total) * 1000) / 10;

/** The bytes the storage host holds behind a signed URL. */
function storedAt(sim: Simulator, url: string): Buffer | undefined {
	const key = new URL(url).pathname
		.slice('/o/'.length)
		.split('/')
		.map((part) => decodeURIComponent(part))
		.join('/');
	return sim.storage.get(key)?.body as Buffer | undefined;
}

// ---- image and video tasks -----------------------------------------------------------------

interface TaskRun {
	label: string;
	kind: 'image' | 'video';
	items: number;
	parameters: IDataObject;
}

const IMAGE_URL_EXPRESSION = '={{ "https://images.example.com/item_" + $json.n + ".png" }}';

/** 200 tasks in three node runs (one operation per run); each task's request names its item. */
const TASK_RUNS: TaskRun[] = [
	{ label: 'upscale task', kind: 'image', items: 70, parameters: { resource: 'image', operation: 'upscale', scaleFactor: '2x' } },
	{
		label: 'relight task',
		kind: 'image',
		items: 60,
		parameters: { resource: 'image', operation: 'relight', prompt: 'warm evening light' },
	},
	{
		label: 'video task',
		kind: 'video',
		items: 70,
		parameters: { resource: 'video', operation: 'generateFromStartEndFrame', model: 'videoq2-turbo', prompt: '={{ "item " + $json.n }}' },
	},
];
const TASKS = TASK_RUNS.reduce((sum, run) => sum + run.items, 0);

/** A submitted task as the simulator holds it, found by the item it was submitted for. */
interface SimTask {
	taskId: string;
	statusPath: string;
	createdAt: number;
	neverFinishes: boolean;
	finished: boolean;
	/** Result URLs once finished. */
	urls: string[];
}

/** Every task the simulator got, by item number; `submits` counts the items submitted more than once. */
function tasksByItem(sim: Simulator): { byItem: Map<number, SimTask>; submits: number; resubmitted: number } {
	const byItem = new Map<number, SimTask>();
	let resubmitted = 0;
	const add = (n: number, task: SimTask) => {
		if (byItem.has(n)) resubmitted++;
		byItem.set(n, task);
	};
	for (const task of sim.proxy.imageTasks.values()) {
		const n = Number(/item_(\d+)\.png$/.exec(String(task.request.image))?.[1]);
		add(n, {
			taskId: task.taskId,
			statusPath: `/proxy/imaging/v1/ai/${task.kind}/${task.taskId}`,
			createdAt: task.createdAt,
			neverFinishes: task.neverFinishes === true,
			finished: task.status === 'COMPLETED',
			urls: task.generated,
		});
	}
	for (const task of sim.proxy.videoTasks.values()) {
		const n = Number(/^item (\d+)$/.exec(String(task.request.prompt))?.[1]);
		add(n, {
			taskId: task.taskId,
			statusPath: `/proxy/video/tasks/${task.taskId}/creations`,
			createdAt: task.history[0]!.at,
			neverFinishes: task.neverFinishes === true,
			finished: task.state === 'success',
			urls: task.creations.map((creation) => creation.url),
		});
	}
	return { byItem, submits: sim.proxy.imageTasks.size + sim.proxy.videoTasks.size, resubmitted };
}

function resultUrls(json: IDataObject): string[] {
	if (Array.isArray(json.generated)) return json.generated as string[];
	return ((json.creations ?? []) as Array<{ url: string }>).map((creation) => creation.url);
}

interface TaskCounts {
	completed: number;
	failed: number;
	wrong: number;
	partial: number;
	duplicates: number;
	neverFinished: number;
	hungRead: number;
	brokeOff: number;
	/** Failed by a cut download although its file was not cut on every try: the node gave up too early. */
	cutButNotRetried: number;
	unexplained: number;
}

/** Checks every item of one run (`first`: the item number of its first item). Failures of expect() name the item. */
async function accountTasks(run: TaskRun, items: INodeExecutionData[], first: number, counts: TaskCounts, seen: Set<string>) {
	const { sim } = env;
	const { byItem } = tasksByItem(sim);
	const otherIds = [...byItem.values()].map((task) => task.taskId);
	for (const [index, item] of items.entries()) {
		const n = first + index;
		const json = item.json;
		expect({ n, paired: item.pairedItem }).toEqual({ n, paired: { item: index } });
		const own = byItem.get(n);
		expect({ n, submitted: own !== undefined }).toEqual({ n, submitted: true });
		if (!own) continue;
		const key = String(json.task_id ?? own.taskId);
		if (seen.has(key)) counts.duplicates++;
		seen.add(key);
		if (json.error !== undefined) {
			counts.failed++;
			const error = String(json.error);
			expect({ n, error }).toEqual({ n, error: expect.stringContaining(own.taskId) });
			if (otherIds.some((id) => id !== own.taskId && error.includes(id))) counts.wrong++;
			expect({ n, binary: item.binary }).toEqual({ n, binary: undefined });
			const timedOut = new RegExp(`^The ${run.label} ${own.taskId} did not finish within 1 s \\(last status: \\w+\\)$`).test(error);
			const reads = sim.requests.filter((request) => request.path === own.statusPath);
			if (own.neverFinishes) {
				counts.neverFinished++;
				expect({ n, error, timedOut }).toEqual({ n, error, timedOut: true });
				// Given up within Max Wait: no status read was sent after it ran out.
				const lastRead = reads.at(-1)!.at - own.createdAt;
				expect({ n, lastReadWithinMaxWait: lastRead <= MAX_WAIT_MS + 250 }).toEqual({ n, lastReadWithinMaxWait: true });
			} else if (timedOut && reads.some((request) => request.status === undefined)) counts.hungRead++;
			else if (/broke off/.test(error)) {
				// Fetched again when cut (10% each): it may fail only when the file was cut on every try.
				counts.brokeOff++;
				const key = decodeURIComponent(new URL(own.urls[0] ?? 'http://x/').pathname.replace(/^\/o\//, ''));
				if ((sim.storage.cutDownloads.get(key) ?? 0) <= RETRY_DELAYS_MS.length) counts.cutButNotRetried++;
			} else counts.unexplained++;
			continue;
		}
		counts.completed++;
		if (json.task_id !== own.taskId || own.neverFinishes || !own.finished) counts.wrong++;
		expect({ n, status: json.status }).toEqual({ n, status: 'succeeded' });
		if (JSON.stringify(resultUrls(json)) !== JSON.stringify(own.urls) || own.urls.length !== 1) counts.wrong++;
		const download = n % 2 === 0;
		expect({ n, files: Object.keys(item.binary ?? {}) }).toEqual({ n, files: download ? ['data'] : [] });
		if (!download) continue;
		const bytes = await readBinary(item.binary!.data!);
		if (!bytes.equals(storedAt(sim, own.urls[0]!)!)) counts.partial++;
	}
}

test('200 image and video tasks polled under 5xx, 429, hung status reads, tasks that never finish and cut downloads', async () => {
	const counts: TaskCounts = {
		completed: 0,
		failed: 0,
		wrong: 0,
		partial: 0,
		duplicates: 0,
		neverFinished: 0,
		hungRead: 0,
		brokeOff: 0,
		cutButNotRetried: 0,
		unexplained: 0,
	};
	const seen = new Set<string>();
	const outputs: INodeExecutionData[] = [];
	const errors: unknown[] = [];
	const kinds: ChaosKind[] = ['taskStatus5xx', 'taskStatus429', 'taskStatusTimeout', 'taskNeverFinishes', 'storageReset'];
	const { common, left } = await underChaos(kinds, async () => {
		let first = 0;
		for (const run of TASK_RUNS) {
			const items = Array.from({ length: run.items }, (_, index) => ({ json: { n: first + index } }));
			const result = await env.run(
				{
					...run.parameters,
					imageSource: 'url',
					imageUrl: IMAGE_URL_EXPRESSION,
					waitMode: 'poll',
					// Half the items download their files: those are compared byte for byte.
					downloadFiles: '={{ $json.n % 2 === 0 }}',
					waitOptions: { pollIntervalSeconds: 0.01, maxWaitMinutes: MAX_WAIT_MINUTES },
				},
				items,
				{ continueOnFail: true },
			);
			expect({ run: run.label, status: result.status }).toEqual({ run: run.label, status: 'success' });
			expect(result.items).toHaveLength(run.items);
			if (result.error('Node')) errors.push(result.error('Node'));
			await accountTasks(run, result.items, first, counts, seen);
			outputs.push(...result.items);
			first += run.items;
		}
	});
	const { byItem, submits, resubmitted } = tasksByItem(env.sim);
	const stuck = [...byItem.values()].filter((task) => task.neverFinishes).length;
	// A status read that got no answer is never missed: the item of its task came back timed out.
	const statusPaths = new Map([...byItem.entries()].map(([n, task]) => [task.statusPath, n]));
	const hungReads = env.sim.requests.filter((request) => statusPaths.has(request.path) && request.status === undefined);
	for (const read of hungReads) {
		const n = statusPaths.get(read.path)!;
		expect({ n, error: outputs[n]!.json.error }).toEqual({ n, error: expect.stringMatching(/did not finish within 1 s/) });
	}
	const secrets = secretsIn(outputs, errors);
	const row: Figures = {
		tasks_run: submits,
		...common,
		items_accounted_pct: pct(counts.completed + counts.failed, TASKS),
		items_completed: counts.completed,
		items_failed: counts.failed,
		hung_status_reads: hungReads.length,
		items_failed_never_finished: counts.neverFinished,
		items_failed_by_hung_status_read: counts.hungRead,
		items_failed_by_cut_download: counts.brokeOff,
		items_failed_by_cut_download_retried_less: counts.cutButNotRetried,
		items_failed_unexplained: counts.unexplained,
		wrong_attributions: counts.wrong,
		partial_files_passed: counts.partial,
		duplicate_items: counts.duplicates + resubmitted,
		secrets_found: secrets.length,
	};
	report('tasks', row);
	expectSoundRun(
		row,
		{ secrets, left },
		{
			tasks_run: TASKS,
			hung_status_reads: row.faults_injected.taskStatusTimeout,
			// Every task that never finished came back as timed out; a healthy one failed only when its own status read hung.
			items_failed_never_finished: stuck,
			items_failed_by_cut_download_retried_less: 0,
			items_failed_unexplained: 0,
		},
	);
	expect(env.sim.counters.storageCredentialAttempts).toBe(0);
	expectInjected(row);
	expect(stuck).toBe(row.faults_injected.taskNeverFinishes);
});

// ---- music ---------------------------------------------------------------------------------

test('text-to-music streams cut mid-line and mid-chunk: the item fails clearly, no take is passed on', async () => {
	const { sim } = env;
	const options = { ...sim.proxy.music };
	const wavs = Array.from(
		{ length: options.streams },
		(_, s) => new ToneWav(options.audioBytesPerStream, options.sampleRate, 440 + 110 * s),
	);
	const prompt = (n: number) => `calm piano for item ${n}`;
	const items = Array.from({ length: MUSIC_RUNS }, (_, n) => ({ json: { n } }));
	const {
		value: result,
		chaos,
		common,
		left,
	} = await underChaos(['musicCutMidLine', 'musicCutMidChunk'], async () =>
		env.run(
			{
				resource: 'music',
				operation: 'generate',
				prompt: '={{ "calm piano for item " + $json.n }}',
				waitOptions: { idleTimeoutSeconds: 10 },
			},
			items,
			{ continueOnFail: true },
		),
	);
	expect(result.status).toBe('success');
	const byInput = new Map<number, INodeExecutionData[]>();
	for (const item of result.items) {
		const index = (item.pairedItem as { item: number }).item;
		byInput.set(index, [...(byInput.get(index) ?? []), item]);
	}
	let completed = 0;
	let failed = 0;
	let wrong = 0;
	let partial = 0;
	let duplicates = 0;
	const endings = { brokeOff: 0, endedEarly: 0 };
	for (let n = 0; n < MUSIC_RUNS; n++) {
		const group = byInput.get(n) ?? [];
		if (group.length === 1 && group[0]!.json.error !== undefined) {
			failed++;
			const error = String(group[0]!.json.error);
			expect({ n, error }).toEqual({ n, error: expect.stringMatching(/^The music stream (broke off|ended before it was complete)/) });
			expect({ n, binary: group[0]!.binary }).toEqual({ n, binary: undefined });
			endings[/broke off/.test(error) ? 'brokeOff' : 'endedEarly']++;
			continue;
		}
		if (group.length === 0) continue;
		completed++;
		if (group.length > options.streams) duplicates++;
		// A take missing, or one without its whole audio, is a partial result passed on as whole.
		if (group.length < options.streams) partial++;
		for (const [s, take] of group.entries()) {
			if (take.json.prompt !== prompt(n) || take.json.stream_index !== s) wrong++;
			const bytes = take.binary?.data ? await readBinary(take.binary.data) : undefined;
			if (!bytes?.equals(wavs[s]!.read(0, wavs[s]!.totalBytes))) partial++;
		}
	}
	const cuts = chaos.injected.musicCutMidLine + chaos.injected.musicCutMidChunk;
	const secrets = secretsIn(result.items);
	const row: Figures = {
		tasks_run: sim.proxy.musicStats.started,
		...common,
		items_accounted_pct: pct(completed + failed, MUSIC_RUNS),
		items_completed: completed,
		items_failed: failed,
		items_failed_by_reset_stream: endings.brokeOff,
		items_failed_by_stream_ended_early: endings.endedEarly,
		wrong_attributions: wrong,
		partial_files_passed: partial,
		duplicate_items: duplicates,
		secrets_found: secrets.length,
	};
	report('music', row);
	expectSoundRun(
		row,
		{ secrets, left },
		{
			tasks_run: MUSIC_RUNS,
			// Exactly the cut streams failed, and no stream was retried (the node does not retry a stream):
			// a reset as broken off, an answer that ended in the middle of a line as ended before complete.
			items_failed: cuts,
			items_failed_by_reset_stream: chaos.injected.musicCutMidChunk,
			items_failed_by_stream_ended_early: chaos.injected.musicCutMidLine,
		},
	);
	expectInjected(row);
});

// ---- registry ------------------------------------------------------------------------------

test('publishing versions while the first upload of some archives fails (503 or reset): each passes on its retry', async () => {
	const { sim, harness } = env;
	sim.registry.seedPublisher({ id: 'acme' });
	const credential = registryCredential(harness, sim);
	const archive = (n: number) => Buffer.concat([ZIP, Buffer.from(`archive of version 1.0.${n}`)]);
	const items = Array.from({ length: VERSIONS }, (_, n) => archiveItem({ n }, archive(n)));
	const {
		value: result,
		chaos,
		common,
		left,
	} = await underChaos(['upload5xx', 'uploadReset'], async () =>
		runRegistry(
			harness,
			credential,
			{
				resource: 'nodeVersion',
				operation: 'publish',
				publisher: locator('acme'),
				node: locator('chaos-node', 'id'),
				version: '={{ "1.0." + $json.n }}',
			},
			items,
			true,
		),
	);
	expect(result.status).toBe('success');
	expect(result.items).toHaveLength(VERSIONS);
	let completed = 0;
	let failed = 0;
	let wrong = 0;
	let partial = 0;
	let retries = 0;
	const seen = new Set<string>();
	let duplicates = 0;
	for (const [n, item] of result.items.entries()) {
		expect({ n, paired: item.pairedItem }).toEqual({ n, paired: { item: n } });
		const version = `1.0.${n}`;
		if (seen.has(String(item.json.version))) duplicates++;
		seen.add(String(item.json.version));
		if (item.json.error !== undefined) {
			failed++;
			expect({ n, error: item.json.error }).toEqual({
				n,
				error: expect.stringContaining(`Version ${version} of node "chaos-node" was created`),
			});
			continue;
		}
		completed++;
		if (item.json.version !== version) wrong++;
		const upload = item.json.upload as { uploaded: boolean; attempts: number };
		expect({ n, uploaded: upload.uploaded }).toEqual({ n, uploaded: true });
		retries += upload.attempts - 1;
		if (!sim.registry.archiveFor('acme', 'chaos-node', version)?.bytes.equals(archive(n))) partial++;
	}
	const versions = [...sim.registry.versions.values()];
	const secrets = secretsIn(result.items);
	const row: Figures = {
		tasks_run: versions.length,
		...common,
		items_accounted_pct: pct(completed + failed, VERSIONS),
		items_completed: completed,
		items_failed: failed,
		uploads_retried: retries,
		half_published_versions: versions.filter((version) => version.status !== 'NodeVersionStatusActive').length,
		wrong_attributions: wrong,
		partial_files_passed: partial,
		duplicate_items: duplicates,
		secrets_found: secrets.length,
	};
	report('registry', row);
	expectSoundRun(
		row,
		{ secrets, left },
		{
			tasks_run: VERSIONS,
			items_failed: 0,
			// One retry per injected failure, each fault striking a URL's first upload only.
			uploads_retried: chaos.injected.upload5xx + chaos.injected.uploadReset,
			half_published_versions: 0,
		},
	);
	// Each version was asked for once; only the uploads were repeated, never with a credential.
	expect(sim.requestsTo('POST', '/publishers/acme/nodes/chaos-node/versions')).toHaveLength(VERSIONS);
	expect(sim.requestsTo('PUT', '/o/')).toHaveLength(VERSIONS + retries);
	expect(sim.counters.storageCredentialAttempts).toBe(0);
	expectInjected(row);
});
