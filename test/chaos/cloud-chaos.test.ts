/**
 * Chaos under load (Host Cloud): 1000 items in one node run, 50 jobs at once, through n8n's engine
 * against the simulator while it drops and duplicates socket messages, holds back `executed`
 * messages, answers status and file lookups with 5xx, cuts storage downloads short and fails some
 * jobs. Every item must come back once, paired with its input, with exactly its own job's files (or
 * an error naming its job), no cut file passed on as whole, and nothing left open.
 *
 * The seed is printed; `CHAOS_SEED=<n> npm run test:chaos` replays a run. Figures go to
 * bench/reliability.json (section `cloud_chaos`) when RELIABILITY_FIGURES=1.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { ChaosFaults, type ChaosRates } from '../../simulator/shared/chaos';
import { storageKey } from '../../simulator/cloud/run';
import { RETRY_DELAYS_MS } from '../../nodes/shared/transport/retry';
import { readBinary } from '../support/engine';
import { type ChaosFigures, catchUncaught, chaosSeed, expectSoundRun, handlesLeft, openHandles } from '../support/chaos-run';
import { recordReliability } from '../support/reliability';
import { findSecrets, runHaystacks } from '../support/secrets-audit';
import { FAST_WAIT, resetCloud, storedFiles, startCloud, txt2img, waitUntil, withoutWebSocket, type CloudSetup } from '../support/cloud';

const JOBS = 1000;
const AT_ONCE = 50;
const SEED = chaosSeed();
const RATES: ChaosRates = {
	dropSocket: 0.0005,
	duplicateMessage: 0.02,
	delayExecuted: 0.05,
	status5xx: 0.1,
	view5xx: 0.1,
	storageReset: 0.05,
	executionError: 0.03,
};

interface Figures extends ChaosFigures {
	jobs_run: number;
	items_failed_by_cut_download: number;
	/** Of those, the items whose file was not cut on every try: the node gave up too early. */
	items_failed_by_cut_download_retried_less: number;
}

let cloud: CloudSetup;
const figures: Record<string, Figures> = {};

beforeAll(async () => {
	process.stdout.write(`\nChaos seed: ${SEED} (replay with CHAOS_SEED=${SEED})\n`);
	// Two images per job, so "all of its files" means more than one; small node times keep 1000 jobs short.
	cloud = await startCloud({ parallelLimit: AT_ONCE, nodeMs: 2 });
});

afterEach(() => resetCloud(cloud));

afterAll(async () => {
	await cloud.sim.close();
	recordReliability('cloud_chaos', { seed: SEED, rates: RATES, jobs_per_scenario: JOBS, max_concurrent_jobs: AT_ONCE, scenarios: figures });
});

function graph() {
	const g = txt2img();
	g['5'].inputs.batch_size = 2;
	return g;
}

function executeAll(download: boolean) {
	const items = Array.from({ length: JOBS }, (_, n) => ({ json: { n } }));
	return cloud.harness.runNode(
		{
			type: 'hostCloud',
			parameters: {
				resource: 'workflow',
				operation: 'execute',
				workflow: JSON.stringify(graph()),
				// Each item's files are named after it, so the job behind every output can be told apart.
				inputOverrides: { values: [{ nodeId: '9', inputName: 'filename_prefix', value: '={{ "item_" + $json.n }}' }] },
				downloadFiles: download,
				additionalFields: { maxConcurrentJobs: AT_ONCE },
				// A short silence check: lost messages are part of the chaos.
				waitOptions: { ...FAST_WAIT, silenceSeconds: 0.3, maxWaitMinutes: 3 },
			},
			credentials: { hostCloudApi: cloud.credential },
			continueOnFail: true,
		},
		items,
	);
}

function storedBytes(file: { filename: string; subfolder: string; type: string }): Buffer {
	const body = cloud.sim.storage.get(storageKey('user-1', file.type, file.subfolder, file.filename))!.body;
	return body as Buffer;
}

/** Checks every item; returns what the figures count. Failures of expect() name the item. */
async function account(items: INodeExecutionData[], download: boolean) {
	let completed = 0;
	let failed = 0;
	let wrong = 0;
	let partial = 0;
	const seen = new Set<string>();
	let duplicates = 0;
	let brokeOff = 0;
	let cutButNotRetried = 0;
	for (const [index, item] of items.entries()) {
		const json = item.json as Record<string, any>;
		expect({ index, paired: item.pairedItem }).toEqual({ index, paired: { item: index } });
		const promptId = json.prompt_id as string;
		expect({ index, promptId, json }).toEqual({ index, promptId: expect.any(String), json });
		if (seen.has(promptId)) duplicates++;
		seen.add(promptId);
		const job = cloud.sim.cloud.jobs.get(promptId);
		// The job behind the item was submitted for this very item.
		if (!job || (job as any).graph?.['9']?.inputs?.filename_prefix !== `item_${index}`) wrong++;
		if (json.error !== undefined) {
			failed++;
			expect({ index, error: json.error }).toEqual({ index, error: expect.stringContaining(promptId) });
			// A file named in the error (a lookup or download that failed) is one of this item's own.
			const named = /"item_(\d+)_/.exec(String(json.error));
			if (named && Number(named[1]) !== index) wrong++;
			// A transfer cut short is fetched again (the link is valid and the job paid for): an item
			// fails by a cut download only when its file was cut on every try (at random, 5% each).
			const cut = /The download of output file "([^"]+)" .* broke off/.exec(String(json.error));
			if (cut) {
				brokeOff++;
				const file = storedFiles(cloud.sim, promptId).find((entry) => entry.filename === cut[1]);
				const key = file && storageKey('user-1', file.type, file.subfolder, file.filename);
				if ((key ? (cloud.sim.storage.cutDownloads.get(key) ?? 0) : 0) <= RETRY_DELAYS_MS.length) cutButNotRetried++;
			} else if (/broke off/.test(String(json.error))) cutButNotRetried++;
			if (job?.status === 'failed') expect({ index, type: json.exception_type }).toEqual({ index, type: job.error?.exception_type });
			expect(item.binary).toBeUndefined();
			continue;
		}
		completed++;
		expect({ index, status: json.status, job: job?.status }).toEqual({ index, status: 'completed', job: 'completed' });
		const own = storedFiles(cloud.sim, promptId);
		const listed = (json.files as Array<Record<string, string>>).map((f) => ({
			filename: f.filename,
			subfolder: f.subfolder,
			type: f.type,
		}));
		if (JSON.stringify(listed) !== JSON.stringify(own) || own.length !== 2) wrong++;
		if (!download) continue;
		for (const file of json.files as Array<Record<string, string>>) {
			const bytes = await readBinary(item.binary![file.binary_property]);
			if (!bytes.equals(storedBytes(file as never))) partial++;
		}
	}
	return { completed, failed, wrong, partial, duplicates, brokeOff, cutButNotRetried };
}

async function chaosRun(name: string, download: boolean, polling: boolean): Promise<Figures> {
	const { sim } = cloud;
	const chaos = new ChaosFaults(SEED, polling ? { ...RATES, dropSocket: 0, duplicateMessage: 0, delayExecuted: 0 } : RATES);
	const uncaught = catchUncaught();
	const before = openHandles();
	const started = Date.now();
	sim.faults.chaos = chaos;
	let result;
	try {
		result = polling ? await withoutWebSocket(() => executeAll(download)) : await executeAll(download);
	} finally {
		delete sim.faults.chaos;
	}
	const wall = (Date.now() - started) / 1000;
	expect(result.status).toBe('success');
	expect(result.items).toHaveLength(JOBS);
	const counts = await account(result.items, download);
	// Closed sockets and ended streams leave the handle list on the next turns of the event loop.
	await waitUntil(() => sim.cloud.openSockets() === 0, 5000);
	const left = await handlesLeft(before);
	uncaught.stop();
	const secrets = findSecrets(runHaystacks({ items: result.items, requests: sim.requests }), { 'API key': sim.apiKey });
	const row: Figures = {
		jobs_run: sim.cloud.jobs.size,
		faults_injected: chaos.injectedAtRate(),
		items_accounted_pct: Math.round(((counts.completed + counts.failed) / JOBS) * 1000) / 10,
		items_completed: counts.completed,
		items_failed: counts.failed,
		wrong_attributions: counts.wrong,
		partial_files_passed: counts.partial,
		duplicate_items: counts.duplicates,
		items_failed_by_cut_download: counts.brokeOff,
		items_failed_by_cut_download_retried_less: counts.cutButNotRetried,
		uncaught_errors: uncaught.errors.length,
		open_handles_left: Object.values(left).reduce((a, b) => a + b, 0),
		secrets_found: secrets.length,
		wall_seconds: wall,
	};
	figures[name] = row;
	process.stdout.write(`Chaos ${name}: ${JSON.stringify(row)}\n`);
	expectSoundRun(row, { secrets, left }, { jobs_run: JOBS, items_failed_by_cut_download_retried_less: 0 });
	expect(sim.counters.storageCredentialAttempts).toBe(0);
	return row;
}

test('1000 jobs at 50 at once on the WebSocket under every fault: each item accounted once, with its own files', async () => {
	const row = await chaosRun('websocket', false, false);
	// The faults did happen (a seed that draws none of a kind would prove nothing about it).
	for (const kind of ['duplicateMessage', 'delayExecuted', 'status5xx', 'view5xx', 'executionError'] as const) {
		expect({ kind, n: row.faults_injected[kind] }).toEqual({ kind, n: expect.any(Number) });
		expect(row.faults_injected[kind]).toBeGreaterThan(0);
	}
});

test('the same with Download Files on: every binary is the whole stored file', async () => {
	const row = await chaosRun('download', true, false);
	expect(row.faults_injected.storageReset).toBeGreaterThan(0);
});

test('the same with no WebSocket (polling only)', async () => {
	await chaosRun('polling', true, true);
});
