/**
 * The recipes of examples/recipes/: the Host nodes chained with n8n's own nodes, each run in n8n
 * against real servers on loopback (support/recipe-servers.ts: SFTP, MQTT, SMTP; PostgreSQL from
 * support/postgres.ts), and checked where the result arrives: the HTTP response's bytes, the page a
 * form shows in Chromium, the files on the SFTP server and the rows that name them, the mail and the
 * MQTT message, the entries of the zip, the version and archive in the registry. Each recipe's canvas
 * is photographed into test/e2e/.work/recipes/, and into docs/recipes/ with RECIPE_SCREENSHOTS=1.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { postJobFromOutside, whenCloudTriggerListens } from '../support/cloud-jobs';
import { e2e } from '../support/context';
import { openEditorSession, type EditorSession } from '../support/editor';
import { outputItems, type CredentialRef, type StoredWorkflow, type WorkflowJson } from '../support/n8n-client';
import { REPO_ROOT } from '../support/n8n-server';
import { startPostgres, type PostgresServer } from '../support/postgres';
import { smtpCredentialData, startRecipeServers, type RecipeServers } from '../support/recipe-servers';
import {
	askImageApi,
	askV2ImageApi,
	jobImageBytes,
	jobsWithPrompt,
	loadRecipe,
	mailParts,
	pngSize,
	sha,
	webhookServed,
	withParameter,
	zipEntries,
} from '../support/recipes';
import { DEMO_PUBLISHER_ID } from '../support/stack';
import { startV2Server, type V2Server } from '../support/v2-server';
import { contractBreaches } from '../../support/v2-contract';
import { waitFor } from '../support/wait';
import { loadExamples } from '../support/workflows';

const log = (line: string) => process.stderr.write(`[e2e] recipes: ${line}\n`);

/** Where pictures go: test/e2e/.work/recipes/, and docs/recipes/ (committed) only when asked, so CI leaves the tree clean. */
function screenshotFolders(): string[] {
	const folders = [join(REPO_ROOT, 'test', 'e2e', '.work', 'recipes')];
	if (process.env.RECIPE_SCREENSHOTS === '1') folders.push(join(REPO_ROOT, 'docs', 'recipes'));
	for (const folder of folders) mkdirSync(folder, { recursive: true });
	return folders;
}

describe('recipes: the Host nodes chained with n8n’s own nodes, checked at the destination', () => {
	let servers: RecipeServers | undefined;
	let postgres: PostgresServer | undefined;
	let browser: EditorSession | undefined;
	/** A server of the v2 jobs API for the v2 recipe, its credential kept until the screenshots are taken. */
	let v2: V2Server | undefined;
	let credentials: Record<string, CredentialRef> = {};
	/** Every recipe imported, for the canvas screenshots. */
	const imported: Array<{ file: string; workflow: StoredWorkflow }> = [];
	const activated: string[] = [];

	const importRecipe = async (file: string, workflow: WorkflowJson = loadRecipe(file), name?: string) => {
		const stored = await e2e().importWorkflow(workflow, name ?? workflow.name, credentials);
		if (!name) imported.push({ file, workflow: stored });
		return stored;
	};
	const activate = async (workflow: StoredWorkflow) => {
		await e2e().client.activateWorkflow(workflow.id);
		activated.push(workflow.id);
	};

	beforeAll(async () => {
		const started = Date.now();
		const { client, n8n, owner } = e2e();
		[servers, postgres, browser] = await Promise.all([
			startRecipeServers(log),
			startPostgres(log),
			openEditorSession(n8n.url, owner, { progress: log, viewport: { width: 1400, height: 800 } }),
		]);
		await postgres.query('CREATE DATABASE recipes', 'postgres');
		await postgres.query(
			'CREATE TABLE image_requests (id serial PRIMARY KEY, prompt text NOT NULL, prompt_id text, file_name text)',
			'recipes',
		);
		credentials = {
			postgres: await client.createCredential('Postgres account', 'postgres', {
				host: '127.0.0.1',
				port: postgres.port,
				database: 'recipes',
				user: postgres.user,
				password: '',
				ssl: 'disable',
			}),
			sftp: await client.createCredential('SFTP account', 'sftp', {
				host: '127.0.0.1',
				port: servers.sftp.port,
				username: servers.sftp.username,
				privateKey: servers.sftp.privateKey,
			}),
			smtp: await client.createCredential('SMTP account', 'smtp', smtpCredentialData(servers.smtp)),
			mqtt: await client.createCredential('MQTT account', 'mqtt', {
				protocol: 'mqtt',
				host: '127.0.0.1',
				port: servers.mqtt.port,
				clean: true,
				ssl: false,
			}),
		};
		v2 = await startV2Server(e2e());
		credentials.hostCloudV2Api = v2.credential;
		log(`servers ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
	}, 600000);

	const deactivateAll = async () => {
		while (activated.length > 0) {
			const id = activated.pop()!;
			await e2e()
				.client.deactivateWorkflow(id)
				.catch(() => undefined);
		}
	};

	afterAll(async () => {
		await deactivateAll();
		await browser?.close();
		await Promise.all([servers?.stop(), postgres?.stop(), v2?.close()]);
	}, 60000);

	const mailWith = (what: string, match: (mail: ReturnType<typeof mailParts>) => boolean) =>
		waitFor(what, () => servers!.smtp.mails().map(mailParts).find(match), { timeoutMs: 30000 });
	const mqttMessage = (topic: string, match: (payload: Record<string, unknown>) => boolean) =>
		waitFor(
			`an MQTT message on ${topic}`,
			() =>
				servers!.mqtt
					.messages()
					.filter((message) => message.topic === topic)
					.map((message) => JSON.parse(message.payload) as Record<string, unknown>)
					.find(match),
			{ timeoutMs: 30000 },
		);

	it('webhook-image-api.json: the HTTP response is the exact file the service produced', async () => {
		const { n8n, simulator } = e2e();
		const workflow = await importRecipe('webhook-image-api.json');
		await activate(workflow);
		await webhookServed(`${n8n.url}/webhook/image-api`, 'POST');
		const { body, served } = await askImageApi(simulator, `${n8n.url}/webhook/image-api`, `recipe image api ${Date.now()}`, 3);
		expect({ bytes: body.length, sha: sha(body) }).toEqual({ bytes: served.length, sha: sha(served) });
		expect(pngSize(body)).toEqual({ width: 512, height: 512 });
	}, 90000);

	it('v2-webhook-image-api.json: on the v2 jobs API, the HTTP response is the exact output asset of the one job it ran', async () => {
		const { n8n } = e2e();
		const { simulator } = v2!;
		const workflow = await importRecipe('v2-webhook-image-api.json');
		await activate(workflow);
		await webhookServed(`${n8n.url}/webhook/v2-image-api`, 'POST');
		// The caller's prompt and seed reached the one job's graph (askV2ImageApi checks them).
		const { body, served } = await askV2ImageApi(simulator, `${n8n.url}/webhook/v2-image-api`, `recipe v2 image api ${Date.now()}`, 7);
		expect({ bytes: body.length, sha: sha(body) }).toEqual({ bytes: served.length, sha: sha(served) });
		expect(pngSize(body)).toEqual({ width: 512, height: 512 });
		expect(contractBreaches(simulator)).toEqual([]);
	}, 90000);

	it('report-failed-jobs.json: a failed Host Cloud job is mailed with its prompt_id, node and message', async () => {
		const { client, n8n, simulator } = e2e();
		const reporter = await importRecipe('report-failed-jobs.json');
		// n8n 2.x runs only an active error workflow.
		await activate(reporter);
		// The image API of the recipe above, with the reporter as its Error Workflow (set in its settings).
		const api = withParameter(loadRecipe('webhook-image-api.json'), 'Image API', 'path', 'image-api-failing');
		api.settings = { ...api.settings, errorWorkflow: reporter.id };
		const failing = await importRecipe('webhook-image-api.json', api, 'Recipe: image API (failing job)');
		await activate(failing);
		await webhookServed(`${n8n.url}/webhook/image-api-failing`, 'POST');
		const known = await client.executionIds(reporter.id);
		simulator.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'Out of GPU memory while sampling (recipe test)' });
		const prompt = `recipe failing job ${Date.now()}`;
		const response = await fetch(`${n8n.url}/webhook/image-api-failing`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ prompt }),
		});
		await response.arrayBuffer();
		const [job] = jobsWithPrompt(simulator, prompt);
		expect(job?.status).toBe('failed');
		const report = await client.waitForNewExecution(reporter.id, known, { timeoutMs: 60000 });
		expect(report.status).toBe('success');
		const mail = await mailWith('the failure mail', (candidate) => candidate.body.includes(job!.promptId));
		expect(mail.to).toBe('ops@example.com');
		expect(mail.subject).toBe('Failed: Recipe: image API (failing job) (Generate image)');
		expect(mail.body).toContain(`prompt_id: ${job!.promptId}`);
		expect(mail.body).toContain('Node: Generate image');
		expect(mail.body).toMatch(/Error: .*Out of GPU memory while sampling \(recipe test\)/);
	}, 120000);

	it('cancel-orphaned-jobs.json, set to cancel jobs left running on purpose too: the job a failed execution left at Max Wait is cancelled and mailed by prompt_id', async () => {
		const { client, n8n, simulator } = e2e();
		// Left running at Max Wait, a job is kept by default (it may be collected later); this user
		// wants such jobs cancelled once the execution failed. (The crash cases run the recipe as it is.)
		const recipe = withParameter(loadRecipe('cancel-orphaned-jobs.json'), 'Cancel its jobs', 'includeKept', true);
		const canceller = await importRecipe('cancel-orphaned-jobs.json', recipe);
		// n8n 2.x runs only an active error workflow.
		await activate(canceller);
		// The image API with a Max Wait far shorter than its job, set to leave the job running: the
		// execution fails and nobody waits for the job any more.
		let api = withParameter(loadRecipe('webhook-image-api.json'), 'Image API', 'path', 'image-api-orphan');
		api = withParameter(api, 'Generate image', 'waitOptions', { maxWaitMinutes: 0.01, onTimeout: 'keep' });
		api.settings = { ...api.settings, errorWorkflow: canceller.id };
		const failing = await importRecipe('webhook-image-api.json', api, 'Recipe: image API (job left running)');
		await activate(failing);
		await webhookServed(`${n8n.url}/webhook/image-api-orphan`, 'POST');
		const known = await client.executionIds(canceller.id);
		const prompt = `recipe orphaned job ${Date.now()}`;
		const nodeMs = simulator.options.nodeMs;
		simulator.options.nodeMs = 60_000;
		try {
			const response = await fetch(`${n8n.url}/webhook/image-api-orphan`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ prompt }),
			});
			await response.arrayBuffer();
			const report = await client.waitForNewExecution(canceller.id, known, { timeoutMs: 60000 });
			expect(report.status).toBe('success');
			const [job] = jobsWithPrompt(simulator, prompt);
			expect(job?.status).toBe('cancelled');
			const mail = await mailWith('the cancel report', (candidate) => candidate.body.includes(job!.promptId));
			expect(mail.to).toBe('ops@example.com');
			expect(mail.subject).toBe('Cancelled 1 orphaned Host Cloud job(s) of Recipe: image API (job left running)');
			expect(mail.body).toContain(`prompt_id: ${job!.promptId} (running, node Generate image, item 0)`);
			expect(mail.body).toMatch(/^Workflow: Recipe: image API \(job left running\)\r?$/m);
			expect(mail.body).toMatch(new RegExp(`Execution: \\d+ \\(https?://\\S+/workflow/${failing.id}/executions/\\d+\\)`));
			expect(mail.body).toMatch(/Error: .*did not finish within/);
		} finally {
			simulator.options.nodeMs = nodeMs;
		}
	}, 120000);

	it('form-to-image.json: a person fills in the form in Chromium and the completion page shows the generated image', async () => {
		const { n8n, simulator } = e2e();
		const workflow = await importRecipe('form-to-image.json');
		await activate(workflow);
		await webhookServed(`${n8n.url}/form/generate-image`, 'GET');
		const page = browser!.page;
		const prompt = `recipe form ${Date.now()}`;
		await page.goto(`${n8n.url}/form/generate-image`);
		await page.locator('textarea').first().fill(prompt);
		await page.locator('button[type="submit"], #submit-btn').first().click();
		const image = page.locator(`img[src^="${simulator.storageUrl}"]`).first();
		await image.waitFor({ state: 'visible', timeout: 60000 });
		const shown = await image.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth);
		expect(shown).toBe(512);
		const src = (await image.getAttribute('src'))!;
		const [job] = jobsWithPrompt(simulator, prompt);
		expect(job?.status).toBe('completed');
		const onPage = Buffer.from(await (await fetch(src.replace(/&amp;/g, '&'))).arrayBuffer());
		const served = await jobImageBytes(simulator, job!.promptId);
		expect(sha(onPage)).toBe(sha(served));
		// What the person sees (docs/recipes.md shows it).
		for (const folder of screenshotFolders()) await page.screenshot({ path: join(folder, 'form-to-image-completion.png') });
	}, 120000);

	it('postgres-batch-to-sftp.json: every row names the file that reached the SFTP server for its own prompt', async () => {
		const { client, simulator } = e2e();
		const prompts = ['a red fox in snow', 'a paper boat on a pond', 'a lighthouse in fog'].map((text) => `${text} ${Date.now()}`);
		await postgres!.query(`INSERT INTO image_requests (prompt) VALUES ${prompts.map((text) => `('${text}')`).join(', ')}`, 'recipes');
		const folder = join(servers!.sftp.root, 'images');
		const recipe = loadRecipe('postgres-batch-to-sftp.json');
		const upload = recipe.nodes.find((node) => node.name === 'Upload to SFTP')!;
		const workflow = await importRecipe(
			'postgres-batch-to-sftp.json',
			withParameter(recipe, 'Upload to SFTP', 'path', String(upload.parameters.path).replace('/srv/images', folder)),
		);
		const execution = await client.runWorkflow(workflow.id, { timeoutMs: 120000 });
		expect(execution.error?.message ?? execution.status).toBe('success');

		const rows = (await postgres!.query('SELECT id, prompt, prompt_id, file_name FROM image_requests ORDER BY id', 'recipes'))
			.split('\n')
			.map((line) => line.split('|'))
			.map(([id, prompt, promptId, fileName]) => ({ id: id!, prompt: prompt!, promptId: promptId!, fileName: fileName! }));
		expect(rows.map((row) => row.prompt)).toEqual(prompts);
		// What Resize made for each job, by prompt_id (its items pair with Generate images' items).
		const generated = outputItems(execution, 'Generate images');
		const resized = new Map<string, Buffer>();
		for (const item of outputItems(execution, 'Resize')) {
			const source = generated[(item.pairedItem as { item: number }).item]!;
			resized.set(String(source.json.prompt_id), await client.binaryContent(item.binary!.data!));
		}
		const hashes = new Set<string>();
		for (const row of rows) {
			expect(row.fileName).toBe(`request-${row.id}-${row.promptId}.png`);
			const job = simulator.cloud.jobs.get(row.promptId) as unknown as { graph: Record<string, { inputs: { text?: string } }> };
			expect({ row: row.id, prompt: job?.graph['6']?.inputs.text }).toEqual({ row: row.id, prompt: row.prompt });
			const path = join(folder, row.fileName);
			expect({ path, exists: existsSync(path) }).toEqual({ path, exists: true });
			const onServer = readFileSync(path);
			expect(pngSize(onServer)).toEqual({ width: 256, height: 256 });
			expect({ row: row.id, sha: sha(onServer) }).toEqual({ row: row.id, sha: sha(resized.get(row.promptId) ?? Buffer.alloc(0)) });
			hashes.add(sha(onServer));
		}
		// Each row's seed draws another picture: files that were swapped between rows would show.
		expect(hashes.size).toBe(rows.length);
		// Max Concurrent Jobs 2: never three of the batch's jobs running at once.
		const jobs = rows.map((row) => simulator.cloud.jobs.get(row.promptId)!);
		for (const job of jobs) {
			const overlapping = jobs.filter((other) => other.startedAt! < job.finishedAt! && other.finishedAt! > job.startedAt!);
			expect(overlapping.length).toBeLessThanOrEqual(2);
		}
	}, 180000);

	it('video-done-mail-mqtt.json: a finished video task is mailed and published on MQTT with its own task and link', async () => {
		const stack = e2e();
		const { client, simulator } = stack;
		const workflow = await importRecipe('video-done-mail-mqtt.json');
		await activate(workflow);
		const known = await client.executionIds(workflow.id);
		// A video started with this recipe's trigger URL as callback, as the "Don't Wait" example does.
		const starter = loadExamples().find((example) => example.file === 'video-start-dont-wait.json')!.workflow;
		const settings = starter.nodes.find((node) => node.name === 'Settings')!;
		const assignments = (settings.parameters.assignments as { assignments: Array<{ name: string; value: unknown }> }).assignments;
		assignments.find((entry) => entry.name === 'triggerUrl')!.value = stack.webhookUrl(workflow, 'Host Task Trigger', 'host-task');
		assignments.find((entry) => entry.name === 'startFrameUrl')!.value = stack.outside.url('lighthouse.png');
		const start = await importRecipe('video-start-dont-wait.json', starter, 'Start a video (recipe test)');
		const started = await client.runWorkflow(start.id);
		const taskId = String(outputItems(started, 'Start video')[0]?.json.task_id);
		const execution = await client.waitForNewExecution(workflow.id, known, { timeoutMs: 90000 });
		expect(execution.error?.message ?? execution.status).toBe('success');
		const videoUrl = simulator.proxy.videoTasks.get(taskId)?.creations[0]?.url;
		expect(videoUrl).toMatch(/^http/);

		const mail = await mailWith('the video mail', (candidate) => candidate.subject === `Video ${taskId} is ready`);
		expect(mail.to).toBe('team@example.com');
		expect(mail.body).toContain(`Video: ${videoUrl}`);
		const message = await mqttMessage('host/videos/finished', (payload) => payload.task_id === taskId);
		expect(message).toEqual({ task_id: taskId, status: 'succeeded', video_url: videoUrl });
	}, 150000);

	it('loop-upscale-to-zip.json: the zip holds one upscaled file per input image, each from its own task', async () => {
		const { client, outside, simulator } = e2e();
		const inputs = ['harbour', 'forest', 'city'].map((name) => outside.url(`recipes/${name}-${Date.now()}.png`));
		const recipe = withParameter(
			loadRecipe('loop-upscale-to-zip.json'),
			'Images to upscale',
			'jsonOutput',
			JSON.stringify({ images: inputs }),
		);
		// Poll fast: the simulator's tasks finish in well under a second.
		const workflow = await importRecipe(
			'loop-upscale-to-zip.json',
			withParameter(recipe, 'Upscale 2x', 'waitOptions', { pollIntervalSeconds: 0.2, maxWaitMinutes: 2 }),
		);
		const execution = await client.runWorkflow(workflow.id, { timeoutMs: 120000 });
		expect(execution.error?.message ?? execution.status).toBe('success');
		expect(execution.runData['Upscale 2x']).toHaveLength(3);
		const [zipItem] = outputItems(execution, 'Zip them');
		expect(zipItem?.binary?.data?.fileName).toBe('upscaled.zip');
		const entries = zipEntries(await client.binaryContent(zipItem!.binary!.data!));
		expect(entries).toHaveLength(inputs.length);
		const sources: string[] = [];
		for (const entry of entries) {
			const taskId = /^[a-z-]+?-([0-9a-f]{8}-[0-9a-f-]+)\.png$/.exec(entry.name)?.[1];
			const task = taskId ? simulator.proxy.imageTasks.get(taskId) : undefined;
			expect({ entry: entry.name, task: task?.status }).toEqual({ entry: entry.name, task: 'COMPLETED' });
			sources.push(String(task!.request.image));
			const result = Buffer.from(await (await fetch(task!.generated[0]!)).arrayBuffer());
			expect({ entry: entry.name, sha: sha(entry.bytes) }).toEqual({ entry: entry.name, sha: sha(result) });
		}
		expect(sources.sort()).toEqual([...inputs].sort());
		// The aggregated list says which task came from which address, in the input order.
		const [aggregated] = outputItems(execution, 'All upscaled images');
		const listed = aggregated!.json.upscaled as Array<{ task_id: string }>;
		expect(listed.map((entry) => String(simulator.proxy.imageTasks.get(entry.task_id)?.request.image))).toEqual(inputs);
	}, 150000);

	it('release-to-registry.json: a release event publishes its archive byte for byte and announces it on MQTT', async () => {
		const { client, n8n, outside, simulator } = e2e();
		const workflow = await importRecipe('release-to-registry.json');
		await activate(workflow);
		const known = await client.executionIds(workflow.id);
		await webhookServed(`${n8n.url}/webhook/host-release`, 'POST');
		const archiveUrl = outside.url('recipe-node-v2.3.4.zip');
		const response = await fetch(`${n8n.url}/webhook/host-release`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({
				action: 'published',
				release: { tag_name: 'v2.3.4', zipball_url: archiveUrl, body: 'Faster uploads' },
				repository: { name: 'recipe-node', html_url: 'https://github.com/my-org/recipe-node' },
			}),
		});
		expect(response.status).toBe(200);
		const execution = await client.waitForNewExecution(workflow.id, known, { timeoutMs: 60000 });
		expect(execution.error?.message ?? execution.status).toBe('success');

		const version = [...simulator.registry.versions.values()].find((entry) => entry.node_id === 'recipe-node' && entry.version === '2.3.4');
		expect(version?.changelog).toBe('Faster uploads');
		const archive = simulator.registry.archiveFor(DEMO_PUBLISHER_ID, 'recipe-node', '2.3.4');
		const released = Buffer.from(await (await fetch(archiveUrl)).arrayBuffer());
		expect({ zip: archive?.isZip, sha: archive && sha(archive.bytes) }).toEqual({ zip: true, sha: sha(released) });
		const message = await mqttMessage('host/releases', (payload) => payload.node === 'recipe-node');
		expect(message).toEqual({ node: 'recipe-node', version: '2.3.4', status: 'published' });
	}, 90000);

	it('cloud-jobs-to-sftp.json: a job started outside n8n reaches the SFTP server under its prompt_id and is mailed with its links; a failed one is mailed in words', async () => {
		const { simulator } = e2e();
		const folder = join(servers!.sftp.root, 'host-jobs');
		const recipe = loadRecipe('cloud-jobs-to-sftp.json');
		const upload = recipe.nodes.find((node) => node.name === 'Upload to SFTP')!;
		const workflow = await importRecipe(
			'cloud-jobs-to-sftp.json',
			withParameter(recipe, 'Upload to SFTP', 'path', String(upload.parameters.path).replace('/srv/host-jobs', folder)),
		);
		const listening = whenCloudTriggerListens(simulator);
		await activate(workflow);
		await listening();
		/** A job posted by a script, straight to the cloud; long enough for the trigger to see it queued. */
		const submit = async () => await postJobFromOutside(simulator, 300);

		const promptId = await submit();
		// The mail goes once the upload has ended: the file is then whole on the server.
		const mail = await mailWith('the new-image mail', (candidate) => candidate.subject === `New image from job ${promptId}`);
		const stored = readdirSync(folder).find((name) => name.startsWith(promptId));
		expect(stored).toBeDefined();
		expect(sha(readFileSync(join(folder, stored!)))).toBe(sha(await jobImageBytes(simulator, promptId)));
		expect(mail.to).toBe('team@example.com');
		expect(mail.body).toContain(`/srv/host-jobs/${stored}`);
		expect(mail.body).toMatch(/signature=/);

		simulator.cloud.failNextJob({
			exception_type: 'OOMError',
			exception_message: 'Out of GPU memory while sampling (recipe test)',
			nodeId: '3',
		});
		const failed = await submit();
		const failure = await mailWith('the failure mail', (candidate) => candidate.subject === `Job ${failed} failed`);
		expect(failure.body).toMatch(/ran out of GPU memory \(OOMError: Out of GPU memory while sampling \(recipe test\)\)/);
		expect(readdirSync(folder).filter((name) => name.startsWith(failed))).toEqual([]);
	}, 150000);

	it('every recipe opens on the canvas (screenshots)', async () => {
		const { n8n } = e2e();
		// Unpublished, as a user sees a recipe they imported (a published one opens under n8n's checklist).
		await deactivateAll();
		const page = browser!.page;
		const folders = screenshotFolders();
		expect(imported.map((entry) => entry.file).sort()).toEqual(
			loadExamples(join(REPO_ROOT, 'examples', 'recipes')).map((entry) => entry.file),
		);
		for (const { file, workflow } of imported) {
			await page.goto(`${n8n.url}/workflow/${workflow.id}`);
			const nodes = page.locator('[data-test-id="canvas-node"]');
			await nodes.first().waitFor({ state: 'visible', timeout: 30000 });
			const shown = workflow.nodes.filter((node) => node.type !== 'n8n-nodes-base.stickyNote').length;
			expect({ file, nodes: await nodes.count() }).toEqual({ file, nodes: shown });
			expect({ file, missing: await page.locator('[data-test-id="node-not-installed"]').count() }).toEqual({ file, missing: 0 });
			const trigger = page.locator('[data-test-id="canvas-node"][data-node-name="Host Task Trigger"] [class*="_description_"]');
			if ((await trigger.count()) > 0)
				// The description shows the node's name, then its subtitle.
				expect({ file, subtitle: (await trigger.first().innerText()).split('\n').pop()!.trim() }).toEqual({
					file,
					subtitle: 'Succeeded tasks',
				});
			// The canvas fits the view with an animation; icons load meanwhile.
			await page.waitForTimeout(1200);
			for (const folder of folders) await page.screenshot({ path: join(folder, file.replace(/\.json$/, '.png')) });
		}
	}, 300000);
});
