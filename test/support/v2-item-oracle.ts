/**
 * The sweeps' oracles of meaning for Host Cloud on v2 (issue 45; DESIGN.md "Answers are about
 * something"), judged on what a run's items show against what the service's answers said:
 * - every output an item lists belongs to the job the item names: the answers that served that
 *   output (its asset id) said so, by the output's `job_id` or, without one, by the job answer it
 *   came in. An output no answer gave, or one given only as another job's, is a breach;
 * - every link an item shows is an absolute http(s) address without markup: never `javascript:`,
 *   `file:`, `data:` or a relative path.
 * And the v2 answers the sweeps serve to test them: another job's outputs, links of other schemes.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

/** Links of other schemes and relative ones: none may reach an item. */
export const NOT_HTTP_LINKS = [
	'javascript:alert(1)',
	'file:///etc/passwd',
	'data:image/png;base64,iVBORw0KGgo=',
	'/api/v2/assets/9f8a1c0d/content',
	'//cdn.example/a.png',
];

/** The kinds of output list a v2 item has (helpers/v2-jobs/job-item.ts). */
const OUTPUT_LISTS = ['images', 'videos', 'audio', 'others'];
const LINK_KEY = /^(url|href|link|uri|location)$|_(url|href|link|uri)$/i;
const SCRIPT_SCHEME = /^\s*(javascript|data|vbscript|file):/i;

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const parse = (text: string): unknown[] => {
	try {
		return [JSON.parse(text) as unknown];
	} catch {
		return [];
	}
};

/** The JSON values of an answer's text: the body, or each `data:` of an event stream. */
function answerValues(text: string): unknown[] {
	const whole = parse(text);
	if (whole.length > 0) return whole;
	return text
		.split('\n')
		.filter((line) => line.startsWith('data:'))
		.flatMap((line) => parse(line.slice(5).trim()));
}

/** What the answers said of each output: asset id → the jobs it was given as belonging to. */
export function outputOwners(texts: string[]): Map<string, Set<string>> {
	const owners = new Map<string, Set<string>>();
	const note = (job: unknown, outputs: unknown) => {
		if (!Array.isArray(outputs)) return;
		for (const output of outputs) {
			if (!isRecord(output) || typeof output.id !== 'string') continue;
			const owner = typeof output.job_id === 'string' ? output.job_id : job;
			if (typeof owner === 'string') (owners.get(output.id) ?? owners.set(output.id, new Set()).get(output.id)!).add(owner);
		}
	};
	for (const value of texts.flatMap(answerValues)) {
		if (!isRecord(value)) continue;
		note(value.id, value.outputs);
		// An event's data may carry the job (`{job: {...}}`) or its outputs beside the job's id.
		if (isRecord(value.job)) note(value.job.id, value.job.outputs);
		note(value.job_id, value.outputs);
	}
	return owners;
}

/** The outputs an item lists, with the job it names. */
function listed(json: IDataObject): Array<{ job: string; asset: unknown }> {
	if (typeof json.job_id !== 'string') return [];
	const job = json.job_id;
	return OUTPUT_LISTS.flatMap((list) => (Array.isArray(json[list]) ? (json[list] as IDataObject[]) : [])).map((output) => ({
		job,
		asset: isRecord(output) ? output.asset_id : undefined,
	}));
}

/** Outputs items show that the answers did not give as the item's job's own, in words (empty: none). */
export function outputsOfAnotherJob(items: INodeExecutionData[], owners: Map<string, Set<string>>): string[] {
	return (
		items
			// A failed item's error is its words; Get Status on v2 shows the job's own `error` (null, or an object) beside its outputs.
			.filter((item) => typeof item.json.error !== 'string')
			.flatMap((item) => listed(item.json))
			.filter(({ job, asset }) => typeof asset !== 'string' || !owners.get(asset)?.has(job))
			.map(({ job, asset }) => {
				const said = typeof asset === 'string' ? [...(owners.get(asset) ?? [])] : [];
				return `item of job ${job} lists output ${JSON.stringify(asset)}, ${said.length > 0 ? `given as job ${said.join(', ')}'s` : 'which no answer gave'}`;
			})
	);
}

/** Every link-like string of a value (by its key, or by a script-like scheme anywhere), with where it is. */
function linksIn(value: unknown, key = '', path = ''): Array<{ where: string; link: string }> {
	if (typeof value === 'string') return LINK_KEY.test(key) || SCRIPT_SCHEME.test(value) ? [{ where: path, link: value }] : [];
	if (Array.isArray(value)) return value.flatMap((element, at) => linksIn(element, key, `${path}[${at}]`));
	if (isRecord(value)) return Object.entries(value).flatMap(([name, child]) => linksIn(child, name, path ? `${path}.${name}` : name));
	return [];
}

/** Whether a link is an absolute http(s) address with no markup. */
export function isHttpLink(text: string): boolean {
	if (!/^https?:\/\/[^\s<>"'`]+$/i.test(text)) return false;
	try {
		return ['http:', 'https:'].includes(new URL(text).protocol);
	} catch {
		return false;
	}
}

/** Links items show that are not absolute http(s) addresses, in words (empty: none). */
export function linksNotHttp(items: INodeExecutionData[]): string[] {
	return items
		.flatMap((item) => linksIn(item.json))
		.filter(({ link }) => link !== '' && !isHttpLink(link))
		.map(({ where, link }) => `${where} is ${JSON.stringify(link.slice(0, 120))}`);
}

/** A v2 job answer's text with every output given as another job's: its own id and job_id moved on (`rename`). */
export function withOutputsOfAnotherJob(text: string, rename: (id: string) => string): { text: string; assets: string[] } | undefined {
	const job = parse(text)[0];
	if (!isRecord(job) || !Array.isArray(job.outputs) || job.outputs.length === 0 || typeof job.id !== 'string') return undefined;
	const other = rename(job.id);
	const outputs = job.outputs.map((output) =>
		isRecord(output) && typeof output.id === 'string' ? { ...output, id: rename(output.id), job_id: other } : output,
	);
	const assets = outputs.flatMap((output) => (isRecord(output) && typeof output.id === 'string' ? [output.id] : []));
	return { text: JSON.stringify({ ...job, outputs }), assets };
}

/** A v2 answer's text with every link of it (an output's `url`, an asset's `url`) set to `link`. */
export function withLinks(text: string, link: string): string | undefined {
	const value = parse(text)[0];
	if (!isRecord(value)) return undefined;
	const relink = (record: Record<string, unknown>) => ('url' in record ? { ...record, url: link } : record);
	const outputs = Array.isArray(value.outputs) ? value.outputs.map((output) => (isRecord(output) ? relink(output) : output)) : undefined;
	const changed = { ...relink(value), ...(outputs ? { outputs } : {}) };
	const out = JSON.stringify(changed);
	return out === JSON.stringify(value) ? undefined : out;
}
