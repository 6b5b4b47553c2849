/**
 * The n8n editor as a user sees it: Debian's Chromium (never a downloaded browser), driven by
 * playwright-core, signs in, opens a workflow and reports for each node what the canvas and the
 * node's panel show: the not-installed placeholder or not, the icon and whether it loaded, the
 * subtitle, and the options of the dropdowns asked for (Resource, Operation, ...).
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import type { Browser, Page } from 'playwright-core';

import type { OwnerAccount } from './n8n-client';
import { ensureDebianPackage } from './debian-packages';
import { cleanEnv, removeOnExit } from './processes';
import { defaultProgress, type ProgressLog } from './runtime';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Installs Debian's chromium package when it is missing (needs root, as in CI). */
export async function ensureChromium(progress: ProgressLog = defaultProgress): Promise<string> {
	await ensureDebianPackage({ name: 'chromium', provides: CHROMIUM_PATH, label: 'Chromium' }, progress);
	return CHROMIUM_PATH;
}

export interface EditorNodeReport {
	name: string;
	/** The node is on the canvas. */
	rendered: boolean;
	/** The type attribute the canvas gives the node (n8n-nodes-host.hostCloud). */
	type?: string;
	/** n8n shows its "not installed" placeholder instead of the node. */
	notInstalled: boolean;
	iconSrc?: string;
	/** The icon image was fetched and decoded (naturalWidth > 0). */
	iconLoaded: boolean;
	subtitle?: string;
	/** Title shown in the node's panel when opened. */
	panelTitle?: string;
	/** Options of each dropdown, as listed when the user opens it. */
	dropdowns: Record<string, string[]>;
	/** What went wrong while inspecting this node, if anything. */
	problem?: string;
}

export interface InspectEditorOptions {
	url: string;
	owner: Pick<OwnerAccount, 'email' | 'password'>;
	workflowId: string;
	/** Node name → parameter names whose dropdowns to open (e.g. ['resource', 'operation']). */
	nodes: Record<string, string[]>;
	/** Where to save a screenshot of the canvas (directories are created). */
	screenshots?: string[];
	progress?: ProgressLog;
}

async function signIn(page: Page, url: string, owner: InspectEditorOptions['owner']): Promise<void> {
	await page.goto(`${url}/signin`);
	await page.fill('input[name="emailOrLdapLoginId"]', owner.email);
	await page.fill('input[name="password"]', owner.password);
	await page.click('[data-test-id="form-submit-button"]');
	await page.waitForURL((address) => !address.pathname.startsWith('/signin'), { timeout: 30000 });
}

async function inspectCanvasNode(page: Page, name: string): Promise<EditorNodeReport> {
	const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${name.replace(/"/g, '\\"')}"]`);
	if ((await node.count()) === 0) return { name, rendered: false, notInstalled: false, iconLoaded: false, dropdowns: {} };
	const icon = node.locator('.n8n-node-icon img').first();
	let iconSrc: string | undefined;
	let iconLoaded = false;
	if ((await icon.count()) > 0) {
		iconSrc = (await icon.getAttribute('src')) ?? undefined;
		// Wait for the image to finish loading, then ask whether it decoded.
		iconLoaded = await icon
			.evaluate(
				(img) =>
					new Promise<boolean>((resolve) => {
						// The page's image element (this file is compiled without the DOM library).
						const image = img as unknown as {
							complete: boolean;
							naturalWidth: number;
							addEventListener(event: string, listener: () => void, options: { once: boolean }): void;
						};
						if (image.complete) return resolve(image.naturalWidth > 0);
						image.addEventListener('load', () => resolve(image.naturalWidth > 0), { once: true });
						image.addEventListener('error', () => resolve(false), { once: true });
					}),
			)
			.catch(() => false);
	}
	const description = node.locator('[class*="_description_"]').first();
	const lines = (await description.count()) > 0 ? (await description.innerText()).split('\n').map((line) => line.trim()) : [];
	return {
		name,
		rendered: true,
		type: (await node.getAttribute('data-node-type')) ?? undefined,
		notInstalled: (await node.locator('[data-test-id="node-not-installed"]').count()) > 0,
		iconSrc,
		iconLoaded,
		subtitle: lines.filter((line) => line && line !== name)[0],
		dropdowns: {},
	};
}

/** Opens the node's panel and lists the options of each dropdown, as a user clicking it sees them. */
async function inspectPanel(page: Page, report: EditorNodeReport, parameters: string[]): Promise<void> {
	await page.dblclick(`[data-test-id="canvas-node"][data-node-name="${report.name.replace(/"/g, '\\"')}"]`);
	const panel = page.locator('[data-test-id="ndv"]');
	await panel.waitFor({ state: 'visible', timeout: 10000 });
	report.panelTitle =
		(
			await panel
				.locator('[data-test-id="node-title-container"], [class*="title"]')
				.first()
				.innerText()
				.catch(() => '')
		).trim() || undefined;
	for (const parameter of parameters) {
		const input = panel.locator(`[data-test-id="parameter-input-${parameter}"]`).first();
		if ((await input.count()) === 0) {
			report.problem = `${report.problem ? `${report.problem}; ` : ''}no "${parameter}" field in the panel`;
			continue;
		}
		await input.click();
		const options = page.locator('.el-select-dropdown__item:visible');
		await options.first().waitFor({ state: 'visible', timeout: 5000 });
		// Each option shows its name (the headline), then its description.
		const texts = await options.evaluateAll((elements) =>
			elements.map((element) => (element.querySelector('.option-headline')?.textContent ?? element.textContent ?? '').trim()),
		);
		report.dropdowns[parameter] = texts;
		await page.keyboard.press('Escape');
		await options
			.first()
			.waitFor({ state: 'hidden', timeout: 5000 })
			.catch(() => undefined);
	}
	await panel.locator('[data-test-id="ndv-close-button"]').first().click({ timeout: 5000 });
	await panel.waitFor({ state: 'hidden', timeout: 10000 });
}

export interface EditorSession {
	page: Page;
	/** Closes the browser and removes its temporary HOME. */
	close(): Promise<void>;
}

/**
 * Debian's Chromium, headless, signed in to n8n as the owner. The browser runs with its own
 * temporary HOME and profile, so nothing lands in the user's home.
 */
export async function openEditorSession(
	url: string,
	owner: InspectEditorOptions['owner'],
	options: { progress?: ProgressLog; viewport?: { width: number; height: number } } = {},
): Promise<EditorSession> {
	const executablePath = await ensureChromium(options.progress ?? defaultProgress);
	const { chromium } = await import('playwright-core');
	const home = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-chromium-'));
	const removeHome = removeOnExit(home);
	let browser: Browser | undefined;
	const close = async () => {
		await browser?.close().catch(() => undefined);
		removeHome();
	};
	try {
		browser = await chromium.launch({
			executablePath,
			headless: true,
			args: ['--disable-dev-shm-usage', '--disable-gpu', '--no-first-run'],
			env: cleanEnv({ HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache') }),
		});
		const page = await browser.newPage({ viewport: options.viewport ?? { width: 1280, height: 640 }, deviceScaleFactor: 1 });
		await signIn(page, url, owner);
		return { page, close };
	} catch (error) {
		await close();
		throw error;
	}
}

/** Signs in, opens the workflow, saves the screenshots, and reports on every node asked for. */
export async function inspectWorkflowInEditor(options: InspectEditorOptions): Promise<Record<string, EditorNodeReport>> {
	const session = await openEditorSession(options.url, options.owner, { progress: options.progress });
	try {
		const { page } = session;
		await page.goto(`${options.url}/workflow/${options.workflowId}`);
		await page.locator('[data-test-id="canvas-node"]').first().waitFor({ state: 'visible', timeout: 30000 });
		// Let icons and the fit-to-view animation settle before looking.
		await page.waitForLoadState('networkidle').catch(() => undefined);
		await page.waitForTimeout(800);

		const reports: Record<string, EditorNodeReport> = {};
		for (const name of Object.keys(options.nodes)) reports[name] = await inspectCanvasNode(page, name);
		for (const path of options.screenshots ?? []) {
			mkdirSync(dirname(path), { recursive: true });
			await page.screenshot({ path });
		}
		for (const [name, parameters] of Object.entries(options.nodes)) {
			const report = reports[name]!;
			if (!report.rendered || report.notInstalled || parameters.length === 0) continue;
			try {
				await inspectPanel(page, report, parameters);
			} catch (error) {
				report.problem = `${report.problem ? `${report.problem}; ` : ''}${(error as Error).message.split('\n')[0]}`;
				// Leave the canvas clean for the next node.
				await page.keyboard.press('Escape').catch(() => undefined);
				await page
					.locator('[data-test-id="ndv-close-button"]')
					.first()
					.click({ timeout: 2000 })
					.catch(() => undefined);
			}
		}
		return reports;
	} finally {
		await session.close();
	}
}
