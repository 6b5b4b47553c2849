/**
 * First contact, in the real editor (Debian's Chromium, headless), importing nothing: a user finds
 * each node in n8n's node panel where they look for it (the trigger panel of a new workflow,
 * "What happens next?" after a node, an AI Agent's tool picker), by its name and by the words of
 * its job; adds it, chooses an action, creates the credential from the node's credential dropdown
 * (the simulator's address and key), executes the step and reads the result in the output panel.
 *
 * n8n's editor hides a node of category AI from its regular search unless its AI subcategories
 * include "Root Nodes", and searches display names and codex aliases only: the codex files
 * (nodes/*\/*.node.json) decide what is findable.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { postJobFromOutside, whenCloudTriggerListens } from '../support/cloud-jobs';
import { e2e } from '../support/context';
import { withSimulatorTiming } from '../support/in-flight';
import { REPO_ROOT } from '../support/n8n-server';
import { openEditorSession, type EditorSession } from '../support/editor';
import {
	createCredentialFromNode,
	executeStep,
	fieldsToAdd,
	fillParameter,
	listenForTestEvent,
	nodeDetails,
	openNextPanelAfterManualTrigger,
	openTriggerPanelOfNewWorkflow,
	outputAfterRun,
	panelTitle,
	pickAction,
	pickNode,
	pickParameterOption,
	searchPanel,
	selectedCredential,
	triggerPanelHeader,
	triggerPanelHelp,
	type PanelItem,
} from '../support/node-panel';
import { hostNodeType } from '../support/workflows';
import { startSimulator } from '../../../simulator/server';
import { wordsFor, type PackageNode } from '../../support/search-words';
import { contractBreaches } from '../../support/v2-contract';

const CLOUD = hostNodeType('hostCloud');
const MEDIA = hostNodeType('hostMedia');
const REGISTRY = hostNodeType('hostRegistry');
const TRIGGER = hostNodeType('hostTaskTrigger');
const CLOUD_TRIGGER = hostNodeType('hostCloudTrigger');
const tool = (type: string) => `${type}Tool`;
/** Host Cloud's two API generations, as its credential dialog offers them at the top right. */
const V1_CONNECTION = 'V1: Workflow API';
const V2_CONNECTION = 'V2: Jobs API';

const ACTIONS: PackageNode[] = ['hostCloud', 'hostMedia', 'hostRegistry'];

/** Word → the nodes of `among` it must find (see test/support/search-words.ts), as `typeOf` names them. */
function searches(among: PackageNode[], typeOf: (node: PackageNode) => string): Array<[string, string[]]> {
	const words = [...new Set(among.flatMap(wordsFor))];
	return words.map((word): [string, string[]] => [word, among.filter((node) => wordsFor(node).includes(word)).map(typeOf)]);
}

/**
 * n8n's trigger panel lists an app's trigger under the app when the package has a node of that name
 * (as it lists GitHub Trigger under GitHub): Host Cloud Trigger shows as "Host Cloud", whose triggers
 * are its events.
 */
const inTriggerPanel = (node: PackageNode) => (node === 'hostCloudTrigger' ? CLOUD : hostNodeType(node));
const TRIGGER_SEARCHES: Array<[string, string[]]> = [
	['Host Task', [TRIGGER]],
	...searches(['hostTaskTrigger', 'hostCloudTrigger'], inTriggerPanel),
];
const NEXT_STEP_SEARCHES = searches(ACTIONS, hostNodeType);
const TOOL_SEARCHES = searches(ACTIONS, (node) => tool(hostNodeType(node)));

/** The publisher whose nodes the Host Registry journey lists (its own id: cases share the simulator). */
const PUBLISHER = 'panel-journey';

const missing = (listed: PanelItem[], expected: string[]) => {
	const types = new Set(listed.map((item) => item.type));
	return expected.filter((type) => !types.has(type));
};
const shown = (listed: PanelItem[]) => listed.map((item) => item.name);

/** Searches every word in the panel that is open, and keeps what each search listed. */
async function searchAll(session: EditorSession, table: Array<[string, string[]]>): Promise<Map<string, PanelItem[]>> {
	const results = new Map<string, PanelItem[]>();
	for (const [word, expected] of table) results.set(word, await searchPanel(session.page, word, expected));
	return results;
}

function expectListed(results: Map<string, PanelItem[]>, word: string, expected: string[]): void {
	const listed = results.get(word);
	if (!listed) throw new Error(`"${word}" was not searched (see the set-up error above)`);
	expect({ word, missing: missing(listed, expected), listed: shown(listed) }).toEqual({ word, missing: [], listed: shown(listed) });
}

describe('n8n’s node panel finds every Host node (Chromium)', () => {
	let session: EditorSession | undefined;
	const titles: Record<string, string> = {};
	const next = new Map<string, PanelItem[]>();
	const triggers = new Map<string, PanelItem[]>();
	const tools = new Map<string, PanelItem[]>();

	beforeAll(async () => {
		const { n8n, owner } = e2e();
		session = await openEditorSession(n8n.url, owner, { viewport: { width: 1280, height: 800 } });
		const { page } = session;

		await openTriggerPanelOfNewWorkflow(page, n8n.url);
		titles.trigger = await panelTitle(page);
		for (const [word, listed] of await searchAll(session, TRIGGER_SEARCHES)) triggers.set(word, listed);

		await openNextPanelAfterManualTrigger(page, n8n.url);
		titles.next = await panelTitle(page);
		for (const [word, listed] of await searchAll(session, NEXT_STEP_SEARCHES)) next.set(word, listed);

		// An AI Agent after the trigger, then its Tool connector's "+": the tool picker.
		await searchPanel(page, 'AI Agent', ['@n8n/n8n-nodes-langchain.agent']);
		await pickNode(page, '@n8n/n8n-nodes-langchain.agent');
		const agent = page.locator('[data-test-id="canvas-node"][data-node-type="@n8n/n8n-nodes-langchain.agent"]');
		await agent.waitFor({ state: 'visible', timeout: 10000 });
		if (await nodeDetails(page).isVisible()) await nodeDetails(page).locator('[data-test-id="ndv-close-button"]').first().click();
		await agent.locator('[data-handleid="inputs/ai_tool/0"] [data-test-id="canvas-handle-plus"]').click();
		for (const [word, listed] of await searchAll(session, TOOL_SEARCHES)) tools.set(word, listed);
		titles.tools = await panelTitle(page);
	}, 180000);

	afterAll(async () => {
		await session?.close();
	});

	it('opens the panels a user looks in', () => {
		expect(titles).toEqual({ trigger: 'What triggers this workflow?', next: 'What happens next?', tools: 'Tools' });
	});

	it.each(TRIGGER_SEARCHES)('"What triggers this workflow?" lists for "%s": %j', (word, expected) => {
		expectListed(triggers, word, expected);
	});

	it.each(NEXT_STEP_SEARCHES)('"What happens next?" lists for "%s": %j', (word, expected) => {
		expectListed(next, word, expected);
	});

	it.each(TOOL_SEARCHES)('an AI Agent’s tool picker lists for "%s": %j', (word, expected) => {
		expectListed(tools, word, expected);
	});
});

describe('a user’s first run of each Host node, from the node panel (Chromium)', () => {
	let session: EditorSession | undefined;

	beforeAll(async () => {
		const { n8n, owner, simulator } = e2e();
		simulator.registry.seedPublisher({ id: PUBLISHER, name: 'Panel Journey' });
		session = await openEditorSession(n8n.url, owner, { viewport: { width: 1280, height: 800 } });
		// Leaving a workflow that was never saved: the user confirms.
		session.page.on('dialog', (dialog) => void dialog.accept().catch(() => undefined));
	}, 120000);

	afterAll(async () => {
		await session?.close();
	});

	/**
	 * "What happens next?" → search the node's name → pick it → pick the action: the node's panel
	 * opens; then "Create new credential" from its credential dropdown, which the node then uses.
	 * `connection`: what the user picks at the dialog's top right first (Host Cloud's API generation:
	 * n8n opens the dialog on the generation of the credential it picked for the node, the one used
	 * last, which may be either).
	 */
	async function addActionWithNewCredential(
		type: string,
		name: string,
		action: string,
		credential: Record<string, string>,
		connection?: string,
	) {
		const { page } = session!;
		await openNextPanelAfterManualTrigger(page, e2e().n8n.url);
		const listed = await searchPanel(page, name, [type]);
		expect(missing(listed, [type])).toEqual([]);
		await pickNode(page, type);
		await pickAction(page, action);
		await nodeDetails(page).waitFor({ state: 'visible', timeout: 15000 });
		const created = await createCredentialFromNode(page, credential, connection);
		expect(await selectedCredential(page)).toBe(created);
	}

	/** A Host API credential for the simulator. Without a Publisher ID its test fails (404) and the dialog stays open. */
	const hostApiFields = () => {
		const { simulator } = e2e();
		return { accessToken: simulator.accessToken, registryUrl: simulator.registryUrl, publisherId: PUBLISHER };
	};

	it('Host Cloud: Get node definitions with a new Host Cloud API credential', async () => {
		const { page } = session!;
		const { simulator } = e2e();
		await addActionWithNewCredential(
			CLOUD,
			'Host Cloud',
			'Get node definitions',
			{ apiKey: simulator.apiKey, baseUrl: simulator.baseUrl },
			V1_CONNECTION,
		);
		await fillParameter(page, 'nodeClass', 'KSampler');
		const output = await executeStep(page);
		// What the cloud serves for that class, as the node's output shows it.
		const catalogue = (await (
			await fetch(`${simulator.baseUrl}/api/object_info`, { headers: { 'X-API-Key': simulator.apiKey } })
		).json()) as Record<string, { input?: { required?: Record<string, unknown> } }>;
		const firstInput = Object.keys(catalogue.KSampler?.input?.required ?? {})[0];
		expect(firstInput).toBeDefined();
		expect(output).toContain(`[ { "class_type": "KSampler", "input": { "required": { "${firstInput}": `);
	}, 180000);

	it('Host Cloud: Cancel the jobs of an execution, by hand, with a new Host Cloud API credential', async () => {
		const { page } = session!;
		const { simulator, client } = e2e();
		// A job that execution 77 of this n8n left running, as a killed worker leaves it (it outlasts the clicks);
		// its tag names this install, as every tag the package writes does (a tag naming none is no install's).
		const instanceId = await client.instanceId();
		await withSimulatorTiming(simulator, 'nodeMs', 60_000, async () => {
			const submit = await fetch(`${simulator.baseUrl}/api/prompt`, {
				method: 'POST',
				headers: { 'X-API-Key': simulator.apiKey, 'content-type': 'application/json' },
				body: JSON.stringify({
					prompt: JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'txt2img-api.json'), 'utf8')),
					extra_data: {
						n8n: {
							execution_id: '77',
							workflow_id: 'wf-panel',
							instance_id: instanceId,
							node_name: 'Run graph',
							item_index: 0,
							operation: 'execute',
						},
					},
				}),
			});
			const { prompt_id: promptId } = (await submit.json()) as { prompt_id: string };
			await addActionWithNewCredential(
				CLOUD,
				'Host Cloud',
				'Cancel the jobs of an execution',
				{ apiKey: simulator.apiKey, baseUrl: simulator.baseUrl },
				V1_CONNECTION,
			);
			await fillParameter(page, 'executionId', '77');
			const output = await executeStep(page);
			expect(output).toContain(`"execution_id": "77", "cancelled": [ { "prompt_id": "${promptId}"`);
			expect(simulator.cloud.jobs.get(promptId)?.status).toBe('cancelled');
		});
	}, 180000);

	it('Host Cloud on v2: the workflow of a job, with a new credential switched to V2: Jobs API in its dialog; no field v2 ignores is offered', async () => {
		const { page } = session!;
		const v2 = await startSimulator({ flavour: 'v2', v2: { surface: 'cloud' } });
		try {
			// A job another client ran on the v2 server.
			const posted = await fetch(`${v2.baseUrl}/api/v2/jobs`, {
				method: 'POST',
				headers: { authorization: `Bearer ${v2.apiKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
				body: JSON.stringify({ workflow: JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'txt2img-api.json'), 'utf8')) }),
			});
			const { id: jobId } = (await posted.json()) as { id: string };
			await addActionWithNewCredential(
				CLOUD,
				'Host Cloud',
				'Get the workflow of a job',
				{ baseUrl: v2.baseUrl, apiKey: v2.apiKey },
				V2_CONNECTION,
			);
			await fillParameter(page, 'jobId', jobId);
			const output = await executeStep(page);
			expect(output).toContain(`"job_id": "${jobId}"`);
			expect(output).toContain('"format": "api"');
			// The credential made the node speak v2: its request went to the v2 server, by its own path.
			expect(v2.requestsTo('GET', `/api/v2/jobs/${jobId}/workflow`)).toHaveLength(1);
			expect(contractBreaches(v2)).toEqual([]);
			// v2 runs keep no preview, and a v2 job record always carries its outputs: neither field is offered.
			await pickParameterOption(page, 'operation', 'Execute');
			const offered = await fieldsToAdd(page, 'Additional Fields');
			expect(offered).toContain('Max Concurrent Jobs');
			expect(offered).not.toContain('Include Preview Image');
			await pickParameterOption(page, 'operation', 'Get Status');
			await nodeDetails(page).locator('[data-test-id="parameter-input-promptId"]').waitFor({ state: 'visible', timeout: 10000 });
			expect(await nodeDetails(page).locator('[data-test-id="node-parameters"]').innerText()).not.toContain('Additional Fields');
		} finally {
			await v2.close();
		}
	}, 180000);

	it('Host Registry: Get many nodes with a new Host API credential', async () => {
		const { page } = session!;
		const [seeded] = e2e().simulator.registry.seedNodes(PUBLISHER, 1);
		await addActionWithNewCredential(REGISTRY, 'Host Registry', 'Get many nodes', hostApiFields());
		const output = await executeStep(page);
		expect(output).toContain(`"id": "${seeded!.id}"`);
		expect(output).toContain(`"publisher": { "id": "${PUBLISHER}"`);
	}, 180000);

	it('Host Media: Upscale an image with a new Host API credential', async () => {
		const { page } = session!;
		const { simulator } = e2e();
		const imageUrl = 'https://example.com/panel-journey.jpg';
		await addActionWithNewCredential(MEDIA, 'Host Media', 'Upscale an image', hostApiFields());
		await fillParameter(page, 'imageUrl', imageUrl);
		const output = await executeStep(page, 120000);
		const task = [...simulator.proxy.imageTasks.values()].find((candidate) => candidate.request.image === imageUrl);
		expect(task).toBeDefined();
		expect(task!.status).toBe('COMPLETED');
		expect(output).toContain(`"task_id": "${task!.taskId}"`);
		expect(output).toContain('"status": "succeeded"');
	}, 180000);

	it('Host Cloud Trigger: found by "ComfyUI", listens with a new credential and shows the job that finished', async () => {
		const { page } = session!;
		const { n8n, simulator } = e2e();
		await openTriggerPanelOfNewWorkflow(page, n8n.url);
		const listed = await searchPanel(page, 'ComfyUI', [CLOUD]);
		expect(missing(listed, [CLOUD])).toEqual([]);
		// The app, then its trigger's event: the node added is the trigger.
		await pickNode(page, CLOUD);
		await pickAction(page, 'When a job succeeds');
		await nodeDetails(page).waitFor({ state: 'visible', timeout: 15000 });
		expect(await triggerPanelHeader(page)).toBe('Pull in jobs as they finish on the Host cloud or your server');
		await page.locator(`[data-test-id="canvas-node"][data-node-type="${CLOUD_TRIGGER}"]`).waitFor({ state: 'attached', timeout: 10000 });
		await createCredentialFromNode(page, { apiKey: simulator.apiKey, baseUrl: simulator.baseUrl });
		const listening = whenCloudTriggerListens(simulator);
		await nodeDetails(page).locator('[data-test-id="trigger-execute-button"]').click();
		await listening();
		// A job someone starts elsewhere (a script posting the graph): the test run shows it.
		const promptId = await postJobFromOutside(simulator);
		const output = await outputAfterRun(page, 60000);
		expect(output).toContain(`"prompt_id": "${promptId}", "status": "succeeded"`);
	}, 180000);

	it('Host Task Trigger: listens from the trigger panel and shows the notification of a finished task', async () => {
		const { page } = session!;
		const { n8n, simulator } = e2e();
		await openTriggerPanelOfNewWorkflow(page, n8n.url);
		const listed = await searchPanel(page, 'Host Task', [TRIGGER]);
		expect(missing(listed, [TRIGGER])).toEqual([]);
		await pickNode(page, TRIGGER);
		// Its events, as n8n lists an app trigger's: the user picks one.
		await pickAction(page, 'When a task finishes');
		await nodeDetails(page).waitFor({ state: 'visible', timeout: 15000 });
		// What the panel says before listening: the node's own words, not n8n's "Pull in events from Host Task".
		expect(await triggerPanelHeader(page)).toBe('Pull in status notifications of Host Media tasks');
		expect(await triggerPanelHelp(page)).toContain('give the test URL (under Webhook URLs) to a Host Media task');
		const testUrl = await listenForTestEvent(page);
		expect(testUrl.startsWith(`${n8n.url}/webhook-test/`)).toBe(true);
		// A media task with that URL as its webhook: it notifies every status change; the final one starts the run.
		const task = simulator.proxy.seedImageTask('image-upscaler', { webhookUrl: testUrl, taskId: 'panel-journey-trigger-task' });
		const output = await outputAfterRun(page, 60000);
		expect(output).toContain(`"task_id": "${task.taskId}"`);
		expect(output).toContain('"status": "succeeded"');
	}, 180000);
});
