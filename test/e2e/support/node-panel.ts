/**
 * n8n's node panel (the "node creator") and node details view as a user drives them in the
 * editor: open the panel where a user looks (the trigger panel of an empty workflow, "What happens
 * next?" after a node, an AI Agent's tool picker), type a search, see which nodes it lists, add
 * one, choose its action, create its credential from the node, execute the step and read the
 * output panel. Used by cases/node-panel.ts with a page from `openEditorSession`.
 */
import type { Locator, Page } from 'playwright-core';

const CREATOR = '[data-test-id="node-creator"]';
const ITEM = `${CREATOR} [data-test-id="item-iterator-item"]`;
/** The panel keys each listed node as `<node type>-<uuid>`. */
const NODE_KEY = /^(.+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A search nothing in n8n matches: the list empties, so what follows is the next search's own result. */
const NO_MATCH = 'zqxjzqxj';

export interface PanelItem {
	/** Full node type, e.g. n8n-nodes-host.hostMedia or n8n-nodes-host.hostMediaTool. */
	type: string;
	/** The name the panel shows. */
	name: string;
}

/** Node items the panel lists now (search results or a view's items), in order. */
export async function listedNodes(page: Page): Promise<PanelItem[]> {
	const rows = await page.locator(ITEM).evaluateAll((elements) =>
		elements.map((element) => ({
			key: element.getAttribute('data-keyboard-nav-id') ?? '',
			navType: element.getAttribute('data-keyboard-nav-type') ?? '',
			name: (element.querySelector('[data-test-id="node-creator-item-name"]')?.textContent ?? '').trim(),
		})),
	);
	return rows
		.filter((row) => row.navType === 'node')
		.map((row) => ({ type: NODE_KEY.exec(row.key)?.[1] ?? row.key, name: row.name }))
		.filter((item) => item.type);
}

/** The panel's title, e.g. "What triggers this workflow?", "What happens next?", "Tools". */
export async function panelTitle(page: Page): Promise<string> {
	// A sub-view (Tools under "Other AI Nodes") stacks its header after its parent's.
	const header = page.locator(`${CREATOR} [data-test-id="nodes-list-header"]`).last();
	await header.waitFor({ state: 'visible', timeout: 10000 });
	return (await header.innerText()).split('\n')[0]!.trim();
}

/**
 * Types `text` into the panel's search and returns what it lists. Waits (up to `timeoutMs`) for
 * every type in `expected` to show up; the result says what was there either way.
 */
export async function searchPanel(page: Page, text: string, expected: string[] = [], timeoutMs = 5000): Promise<PanelItem[]> {
	const input = page.locator(`${CREATOR} [data-test-id="node-creator-search-bar"]`);
	await input.fill(NO_MATCH);
	await page.waitForFunction(`document.querySelectorAll('${ITEM}').length === 0`, undefined, { timeout: 10000 });
	await input.fill(text);
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const listed = await listedNodes(page);
		const types = new Set(listed.map((item) => item.type));
		if (expected.every((type) => types.has(type)) && (expected.length > 0 || listed.length > 0)) return listed;
		if (Date.now() > deadline) return listed;
		await page.waitForTimeout(100);
	}
}

/** A new, empty workflow with the trigger panel open ("What triggers this workflow?"). */
export async function openTriggerPanelOfNewWorkflow(page: Page, url: string): Promise<void> {
	await page.goto(`${url}/workflow/new`);
	// The "Add first step" square; n8n fades it in, so it may still be transparent.
	await page.locator('[data-test-id="canvas-add-button"]').click({ force: true, timeout: 30000 });
	await page.locator(CREATOR).waitFor({ state: 'visible', timeout: 10000 });
}

/** Clicks the listed node of this type (the first one) in the panel's current list. */
export async function pickNode(page: Page, type: string): Promise<void> {
	await page.locator(`${ITEM}[data-keyboard-nav-type="node"][data-keyboard-nav-id^="${type}-"]`).first().click();
}

/** Clicks the action of this name among the node's actions the panel shows after picking the node. */
export async function pickAction(page: Page, action: string): Promise<void> {
	const item = page.locator(`${ITEM}[data-keyboard-nav-type="action"]`).filter({
		has: page.locator('[data-test-id="node-creator-item-name"]', { hasText: new RegExp(`^${escapeRegExp(action)}$`) }),
	});
	await item.first().click({ timeout: 10000 });
}

/** A new workflow with "Trigger manually" added, and the "What happens next?" panel open. */
export async function openNextPanelAfterManualTrigger(page: Page, url: string): Promise<void> {
	await openTriggerPanelOfNewWorkflow(page, url);
	await searchPanel(page, 'manual', ['n8n-nodes-base.manualTrigger']);
	await pickNode(page, 'n8n-nodes-base.manualTrigger');
	await page.locator('[data-test-id="canvas-node"]').first().waitFor({ state: 'visible', timeout: 10000 });
	await page.locator('[data-test-id="node-creator-plus-button"]').click();
	await page.locator(CREATOR).waitFor({ state: 'visible', timeout: 10000 });
}

/** The node details view (the panel a node opens in). */
export function nodeDetails(page: Page): Locator {
	return page.locator('[data-test-id="ndv"]');
}

/**
 * From the node's credential dropdown, "Create new credential": picks the connection (`connection`,
 * the label of the choice at the dialog's top right, for a node whose credential types are chosen
 * there, such as Host Cloud's "V1: Workflow API" / "V2: Jobs API"), fills the fields given (by
 * parameter name), saves, and waits for n8n to test it and hand it to the node. Returns the name
 * n8n gave the credential. A failed test keeps the dialog open: its message is thrown.
 */
export async function createCredentialFromNode(page: Page, fields: Record<string, string>, connection?: string): Promise<string> {
	await nodeDetails(page).locator('[data-test-id="node-credentials-select"]').click();
	await page.getByText('Create new credential', { exact: true }).click();
	const dialog = page.locator('[data-test-id="editCredential-modal"]');
	await dialog.waitFor({ state: 'visible', timeout: 10000 });
	if (connection !== undefined) await pickConnection(page, connection);
	const name = (await dialog.locator('[data-test-id="credential-name"]').innerText()).trim();
	for (const [field, value] of Object.entries(fields)) {
		await dialog.locator(`[data-test-id="parameter-input-${field}"]`).locator('input, textarea').first().fill(value);
	}
	await dialog.locator('[data-test-id="credential-save-button"]').click();
	try {
		await dialog.waitFor({ state: 'hidden', timeout: 30000 });
	} catch {
		const shown = (await dialog.innerText().catch(() => '')).replace(/\s+/g, ' ').slice(0, 500);
		throw new Error(`The credential dialog stayed open after Save (its test failed?): ${shown}`);
	}
	return name;
}

/** The open credential dialog's choice at its top right (for Host Cloud, the API generation). */
function connectionChoice(page: Page): Locator {
	return page.locator('[data-test-id="editCredential-modal"] [data-test-id="credential-mode-dropdown-trigger"]');
}

/** Picks a connection in the open credential dialog's choice at its top right, unless it is shown already. */
async function pickConnection(page: Page, connection: string): Promise<void> {
	const shown = new RegExp(`^\\s*${escapeRegExp(connection)}\\s*$`);
	if (shown.test(await connectionChoice(page).innerText())) return;
	await connectionChoice(page).click();
	await page.getByText(connection, { exact: true }).last().click();
	await connectionChoice(page).filter({ hasText: shown }).waitFor({ state: 'visible', timeout: 10000 });
}

/** The credential the node now uses, as its dropdown shows it. */
export async function selectedCredential(page: Page): Promise<string> {
	return await nodeDetails(page).locator('[data-test-id="node-credentials-select"] input').first().inputValue();
}

/** Types a value into one of the node's text parameters. */
export async function fillParameter(page: Page, name: string, value: string): Promise<void> {
	await nodeDetails(page).locator(`[data-test-id="parameter-input-${name}"]`).locator('input, textarea').first().fill(value);
}

/** Picks an option (by the name the dropdown shows) in one of the node's dropdown parameters, e.g. Operation. */
export async function pickParameterOption(page: Page, name: string, option: string): Promise<void> {
	await nodeDetails(page).locator(`[data-test-id="parameter-input-${name}"]`).first().click();
	const headline = page
		.locator('.el-select-dropdown__item:visible .option-headline')
		.filter({ hasText: new RegExp(`^${escapeRegExp(option)}$`) });
	await headline.first().click({ timeout: 10000 });
}

/** The fields a collection parameter of the node (by its label, e.g. "Additional Fields") offers under its Add button. */
export async function fieldsToAdd(page: Page, label: string): Promise<string[]> {
	const item = nodeDetails(page)
		.locator('[data-test-id="parameter-item"]')
		.filter({ hasText: label, has: page.locator('[data-test-id="collection-parameter-add"]') })
		.last();
	const add = item.locator('[data-test-id="collection-parameter-add"]').last();
	await add.scrollIntoViewIfNeeded();
	// A collection with one field shows a button named after it instead of a list.
	if ((await add.evaluate((element) => element.tagName)) === 'BUTTON') return [(await add.innerText()).trim()];
	await add.click();
	const options = page.locator('[data-test-id="collection-parameter-option"]:visible');
	await options.first().waitFor({ state: 'visible', timeout: 5000 });
	const names = (await options.allInnerTexts()).map((text) => text.trim());
	await page.keyboard.press('Escape');
	return names;
}

/**
 * Waits for the step's run to end in the output panel and returns what it shows in its JSON view
 * (whitespace collapsed), or throws with the error n8n shows. The view renders the lines in sight
 * (a long output is cut off): look for what comes first.
 */
export async function outputAfterRun(page: Page, timeoutMs: number): Promise<string> {
	const output = nodeDetails(page).locator('[data-test-id="output-panel"]');
	const success = output.locator('[data-test-id="node-run-status-success"]');
	const failure = output.locator('[data-test-id="node-run-status-error"], [data-test-id="node-error-message"]');
	await success.or(failure).first().waitFor({ state: 'visible', timeout: timeoutMs });
	if (await failure.first().isVisible()) {
		throw new Error(`The step failed: ${(await output.innerText()).replace(/\s+/g, ' ').slice(0, 500)}`);
	}
	await output.locator('[data-test-id="radio-button-json"]').click();
	// The JSON view fills in after it is switched to.
	const data = output.locator('[data-test-id="ndv-data-container"]');
	await data.filter({ hasText: /[[{]/ }).waitFor({ state: 'visible', timeout: 10000 });
	return (await data.innerText()).replace(/\s+/g, ' ');
}

/** Clicks the node's Execute step and returns the output panel's JSON view once the run ended. */
export async function executeStep(page: Page, timeoutMs = 60000): Promise<string> {
	await nodeDetails(page).locator('[data-test-id="node-execute-button"]').first().click();
	return await outputAfterRun(page, timeoutMs);
}

/** The text a trigger's panel shows on its left while it is not listening (its header). */
export async function triggerPanelHeader(page: Page): Promise<string> {
	const header = nodeDetails(page).locator('[data-test-id="trigger-header"]');
	await header.waitFor({ state: 'visible', timeout: 10000 });
	return (await header.innerText()).trim();
}

/** Opens "When will this node trigger my flow?" and returns the node panel's text (whitespace collapsed). */
export async function triggerPanelHelp(page: Page): Promise<string> {
	await nodeDetails(page).getByText('When will this node trigger my flow?').click();
	return (await nodeDetails(page).innerText()).replace(/\s+/g, ' ');
}

/** Reads the trigger's test URL (under Webhook URLs), then clicks its Execute step: it listens for a test event. */
export async function listenForTestEvent(page: Page): Promise<string> {
	const panel = nodeDetails(page);
	// While listening, n8n blocks the parameters: read the URL first.
	await panel.locator('[data-test-id="node-parameters"]').getByText('Webhook URLs', { exact: true }).click();
	const url = panel.locator('.webhook-url').filter({ hasText: '/webhook-test/' }).first();
	await url.waitFor({ state: 'visible', timeout: 10000 });
	const testUrl = (await url.innerText()).trim();
	await panel.locator('[data-test-id="trigger-execute-button"]').click();
	await panel.locator('[data-test-id="trigger-listening"]').waitFor({ state: 'visible', timeout: 15000 });
	return testUrl;
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
