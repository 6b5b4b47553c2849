/**
 * The secrets audit of a real-n8n run (issue 13, item 5): every secret the run handled is looked for
 * in n8n's database (every table, every text column), n8n's log, the simulator's request log and
 * every output item a case read, as is, URL-encoded, JSON-escaped and Base64. The secrets: the
 * Host Cloud API key, the Host API access token, publishing token and code-hosting token, and the
 * signature of every resume URL n8n handed to the service.
 *
 * A secret counts only outside the place it belongs, and exactly two places are left out:
 * - the notification URL field (`callback_url` / `webhook_url`) of a create-task request, when it
 *   holds the resume URL of the execution that created the task: the service needs it to notify;
 * - `resumeToken` of an execution's own data (table execution_data, column data), when it is that
 *   execution's signature: n8n 2.x keeps the token there and compares the URL's `signature` with it
 *   (waiting-webhooks validateToken). The package cannot change that; the audit counts these copies.
 * Everything else in those requests and rows is searched.
 *
 * The search is the shared one (test/support/secrets-audit.ts); what is gathered here is the e2e
 * stack's own.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { NOTIFY_FIELD } from '../../../nodes/HostMedia/transport/media-api';
import { MEDIA_TASKS } from '../../../nodes/HostMedia/transport/media-tasks';
import type { LoggedRequest } from '../../../simulator/shared/core';
import type { Simulator } from '../../../simulator/server';
import { findSecrets, type SecretFinding } from '../../support/secrets-audit';
import { decodeFlatted } from './flatted';
import type { ExecutionResult } from './n8n-client';
import { cleanEnv } from './processes';
import type { HostStack } from './stack';

export interface Secret {
	/** What it is, for the report (the value is never printed). */
	name: string;
	value: string;
}

/** What to search (a text, or a value whose strings and keys are all searched) and where it comes from, for the report. */
export interface Haystack {
	where: string;
	text: unknown;
}

/** Every (secret, place) pair where a form of a secret occurs (the search is the chaos suites' own). */
export function searchHaystacks(haystacks: readonly Haystack[], secrets: readonly Secret[]): SecretFinding[] {
	return findSecrets(
		Object.fromEntries(haystacks.map((haystack, index) => [`${haystack.where} [${index}]`, haystack.text])),
		Object.fromEntries(secrets.map((secret) => [secret.name, secret.value])),
	);
}

// ---- what the e2e run handled ----------------------------------------------------------------------

/** A resume URL n8n handed to the service (a task's notification URL). */
export interface ResumeUrl {
	executionId: string;
	url: string;
	signature: string;
}

/** The resume URLs in the simulator's media tasks (every task since the stack started). */
export function resumeUrlsHandedToService(simulator: Simulator, n8nUrl: string): ResumeUrl[] {
	const urls = [
		...[...simulator.proxy.videoTasks.values()].map((task) => task.callbackUrl),
		...[...simulator.proxy.imageTasks.values()].map((task) => task.webhookUrl),
	];
	const found: ResumeUrl[] = [];
	for (const url of urls) {
		if (!url?.startsWith(`${n8nUrl}/webhook-waiting/`)) continue;
		const parsed = new URL(url);
		const executionId = /^\/webhook-waiting\/([^/]+)/.exec(parsed.pathname)?.[1];
		const signature = parsed.searchParams.get('signature');
		if (executionId && signature) found.push({ executionId, url, signature });
	}
	return found;
}

export function secretsOfRun(stack: HostStack, resumeUrls: readonly ResumeUrl[]): Secret[] {
	const { hostCloudApi, hostApi } = stack.credentialData;
	return [
		{ name: 'the API key (Host Cloud API credential)', value: hostCloudApi.apiKey! },
		{ name: 'the access token (Host API credential)', value: hostApi.accessToken! },
		{ name: 'the publishing token (Host API credential)', value: hostApi.publishingToken! },
		{ name: 'the code-hosting token (Host API credential)', value: hostApi.repohostToken! },
		...resumeUrls.map((resume) => ({ name: `the resume URL signature of execution ${resume.executionId}`, value: resume.signature })),
	];
}

// ---- where to look ---------------------------------------------------------------------------------

/** Create-task paths (every task the node starts, from its catalogue) and the field that carries the notification URL. */
const NOTIFY_FIELDS: ReadonlyMap<string, string> = new Map(
	Object.values(MEDIA_TASKS).flatMap((task) => ('submitPath' in task ? [[task.submitPath, NOTIFY_FIELD[task.kind]] as const] : [])),
);

/** A create-task body with its notification URL left out when it is a resume URL handed over (then only). */
function bodyOutsideNotifyField(request: LoggedRequest, resumeUrls: ReadonlySet<string>): string {
	const field = request.method === 'POST' ? NOTIFY_FIELDS.get(request.path) : undefined;
	if (!field) return request.body;
	let body: unknown;
	try {
		body = JSON.parse(request.body);
	} catch {
		return request.body;
	}
	if (!body || typeof body !== 'object' || !resumeUrls.has(String((body as Record<string, unknown>)[field]))) return request.body;
	const { [field]: _resumeUrl, ...rest } = body as Record<string, unknown>;
	return JSON.stringify(rest);
}

/** The simulator's request log: method, path, query, headers (already masked) and body of each request. */
export function requestLogHaystacks(requests: readonly LoggedRequest[], resumeUrls: readonly ResumeUrl[]): Haystack[] {
	const handedOver = new Set(resumeUrls.map((resume) => resume.url));
	return requests.map((request, index) => ({
		where: `simulator request log #${index + 1} (${request.method} ${request.path})`,
		text: [
			request.method,
			request.path,
			JSON.stringify(request.query),
			JSON.stringify(request.headers),
			bodyOutsideNotifyField(request, handedOver),
		].join('\n'),
	}));
}

/** The run data of every execution a case read, node by node (items, binary metadata, errors). */
export function outputItemHaystacks(executions: Iterable<ExecutionResult>): Haystack[] {
	const haystacks: Haystack[] = [];
	for (const execution of executions) {
		for (const [node, runs] of Object.entries(execution.runData)) {
			haystacks.push({ where: `output of "${node}" in execution ${execution.id}`, text: runs });
		}
		if (execution.error) haystacks.push({ where: `error of execution ${execution.id}`, text: execution.error });
	}
	return haystacks;
}

interface DatabaseRow {
	table: string;
	rowid: number | null;
	/** The row's columns but NULLs: text, numbers as text, blobs as latin1. */
	cells: Record<string, string>;
}

/** Reads every row of every table with Node 24's built-in SQLite (read-only), in a child process. */
function readDatabase(nodeBinary: string, databaseFile: string): DatabaseRow[] {
	const folder = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-audit-'));
	const outFile = join(folder, 'rows.ndjson');
	const script = `
const { DatabaseSync } = require('node:sqlite');
const { openSync, writeSync, closeSync } = require('node:fs');
const [databaseFile, outFile] = process.argv.slice(1);
const db = new DatabaseSync(databaseFile, { readOnly: true });
const out = openSync(outFile, 'w');
for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()) {
	const quoted = '"' + name.replace(/"/g, '""') + '"';
	let rows;
	try { rows = db.prepare('SELECT rowid AS "__rowid", * FROM ' + quoted).all(); } catch { rows = db.prepare('SELECT * FROM ' + quoted).all(); }
	for (const row of rows) {
		const cells = {};
		for (const [column, value] of Object.entries(row)) {
			if (column === '__rowid') continue;
			if (typeof value === 'string') cells[column] = value;
			else if (value instanceof Uint8Array) cells[column] = Buffer.from(value).toString('latin1');
			else if (typeof value === 'number' || typeof value === 'bigint') cells[column] = String(value);
		}
		writeSync(out, JSON.stringify({ table: name, rowid: row.__rowid ?? null, cells }) + '\\n');
	}
}
closeSync(out);
db.close();
`;
	try {
		const result = spawnSync(nodeBinary, ['--no-warnings', '-e', script, databaseFile, outFile], {
			env: cleanEnv(),
			encoding: 'utf8',
			timeout: 120000,
		});
		if (result.status !== 0) throw new Error(`Reading n8n's database ${databaseFile} failed: ${result.stderr || result.error?.message}`);
		return readFileSync(outFile, 'utf8')
			.split('\n')
			.filter(Boolean)
			.map((line) => JSON.parse(line) as DatabaseRow);
	} finally {
		rmSync(folder, { recursive: true, force: true });
	}
}

/**
 * n8n's database as haystacks, one per table cell. An execution's data (execution_data.data, in
 * n8n's flatted encoding) is searched as its strings and keys, less `resumeToken` when that is the
 * execution's own resume URL signature: n8n keeps it there. Those copies are returned, not hidden.
 */
export function databaseHaystacks(
	nodeBinary: string,
	databaseFile: string,
	resumeUrls: readonly ResumeUrl[],
): { haystacks: Haystack[]; tokensKeptByN8n: string[]; rows: number } {
	const signatureOf = new Map(resumeUrls.map((resume) => [resume.executionId, resume.signature]));
	const haystacks: Haystack[] = [];
	const tokensKeptByN8n: string[] = [];
	const rows = readDatabase(nodeBinary, databaseFile);
	for (const row of rows) {
		for (const [column, value] of Object.entries(row.cells)) {
			const where = `n8n database ${row.table}.${column} (rowid ${row.rowid ?? '?'})`;
			if (row.table !== 'execution_data' || column !== 'data') {
				haystacks.push({ where, text: value });
				continue;
			}
			const data = decodeFlatted(value) as Record<string, unknown> | undefined;
			const executionId = row.cells.executionId ?? String(row.rowid);
			if (data && typeof data === 'object' && data.resumeToken !== undefined && data.resumeToken === signatureOf.get(executionId)) {
				tokensKeptByN8n.push(`${row.table}.${column} of execution ${executionId}: resumeToken`);
				delete data.resumeToken;
			}
			haystacks.push({ where: `${where}, execution ${executionId}`, text: data });
		}
	}
	return { haystacks, tokensKeptByN8n, rows: rows.length };
}

export interface AuditResult {
	hits: SecretFinding[];
	secrets: number;
	resumeUrls: number;
	/** What was searched, by place. */
	searched: { databaseRows: number; databaseCells: number; logBytes: number; requests: number; outputs: number };
	/** Copies of a resume URL signature n8n keeps in its own execution data (left out of the search, counted here). */
	tokensKeptByN8n: string[];
}

/** The whole audit of a stack as it stands (run it after the last case, before the stack stops). */
export function auditSecrets(stack: HostStack): AuditResult {
	const resumeUrls = resumeUrlsHandedToService(stack.simulator, stack.n8n.url);
	const secrets = secretsOfRun(stack, resumeUrls);
	const database = databaseHaystacks(stack.runtime.nodeBinary, join(stack.n8n.userFolder, '.n8n', 'database.sqlite'), resumeUrls);
	const log = readFileSync(stack.n8n.logFile, 'utf8');
	const requests = requestLogHaystacks(stack.simulator.requests, resumeUrls);
	const outputs = outputItemHaystacks(stack.client.seenExecutions.values());
	const haystacks = [...database.haystacks, { where: "n8n's log", text: log }, ...requests, ...outputs];
	return {
		hits: searchHaystacks(haystacks, secrets),
		secrets: secrets.length,
		resumeUrls: resumeUrls.length,
		searched: {
			databaseRows: database.rows,
			databaseCells: database.haystacks.length,
			logBytes: Buffer.byteLength(log),
			requests: requests.length,
			outputs: outputs.length,
		},
		tokensKeptByN8n: database.tokensKeptByN8n,
	};
}
