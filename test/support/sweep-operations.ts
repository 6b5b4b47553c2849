/**
 * The operations the sweeps run, found from the nodes' own descriptions, each with its required
 * fields filled (the sweeps change one thing of these), and one bounded run of a node against a
 * loopback service that records what was sent. Shared by the bad-input sweep and the structural sweep.
 */
import type { INodeTypeDescription } from 'n8n-workflow';

import { resources as cloudResources, type GenerationAvailability } from '../../nodes/HostCloud/actions/router';
import { picturePng } from '../../simulator/shared/png';
import type { EngineHarness } from './engine';
import type { HarnessItem } from './items-node';
import { txt2img } from './cloud';
import type { SeenRequest } from './hostile-service';
import { visibleFields, type Parameters } from './node-parameters';
import { locator, ZIP } from './registry-node';
import { hostApiCredential, hostCloudApiCredential, selfHostedCredential } from './credential-fixtures';
import type { V2Simulator } from '../../simulator/server';
import { requestBreaches } from './v2-contract';
import type { Answer, SweepService } from './sweep-service';

export const IMAGE_URL = 'https://images.example.com/photo.png';
export const PNG = picturePng(8, 8);

/** Values for required fields the description gives no usable default for, by field name. */
export const FILL: Parameters = {
	workflow: JSON.stringify(txt2img()),
	promptId: 'sweep-prompt-1',
	promptIds: 'sweep-prompt-1',
	filename: 'out_00001_.png',
	originalFilename: 'photo.png',
	taskId: '00000000-0000-4000-8000-000000000001',
	publisherId: 'acme',
	name: 'Acme',
	version: '1.0.0',
	versionId: 'version-1',
	prompt: 'a short jingle',
	frames: { frame: [1, 2].map((n) => ({ keyImageSource: 'url', keyImageUrl: IMAGE_URL, duration: 2, prompt: `frame ${n}` })) },
};

/** The registry's archive comes from its own binary field, so the image in `data` stays an image. */
export const NODE_FILL: Record<string, Parameters> = { hostRegistry: { binaryPropertyName: 'archive' } };

const FILES = {
	data: { data: PNG.toString('base64'), fileName: 'photo.png', mimeType: 'image/png' },
	archive: { data: ZIP.toString('base64'), fileName: 'node-1.0.0.zip', mimeType: 'application/zip' },
};

export const ITEM: HarnessItem = { json: {}, binaryBase64: FILES };

/** The input item of a run of `type` with only the file it reads: the registry's archive, or the image the others take. */
export const itemFor = (type: string): HarnessItem => ({
	json: {},
	binaryBase64: type === 'hostRegistry' ? { archive: FILES.archive } : { data: FILES.data },
});

/** A node's description as the harness loaded it. */
export const nodeDescription = (harness: EngineHarness, type: string): INodeTypeDescription =>
	harness.nodeTypes.getByNameAndVersion(`n8n-nodes-host.${type}`).description;

/**
 * The operation's parameters with every required field filled: the sweep changes one field of
 * these. On `v2` (Host Cloud's API Generation), the fields v2 shows.
 */
export function sweepBase(
	harness: EngineHarness,
	type: string,
	resource: string,
	operation: string,
	generation: 'v1' | 'v2' = 'v1',
): Parameters {
	const description = nodeDescription(harness, type);
	const parameters: Parameters = { ...(generation === 'v2' ? { apiGeneration: 'v2' } : {}), ...(resource ? { resource, operation } : {}) };
	const fill = { ...FILL, ...NODE_FILL[type] };
	for (const { property, in: collection } of visibleFields(description, parameters)) {
		// An update needs one field to change: its first text field.
		if (collection?.name === 'updateFields' && !parameters.updateFields && property.type === 'string')
			parameters.updateFields = { [property.name]: 'sweep' };
		if (collection) continue;
		if (property.name in fill) parameters[property.name] = fill[property.name];
		else if (property.type === 'resourceLocator') parameters[property.name] = locator(property.name === 'node' ? 'my-node' : 'acme', 'id');
		else if (property.required && property.default === '') parameters[property.name] = /url/i.test(property.name) ? IMAGE_URL : 'sweep';
	}
	if (type === 'hostMedia') parameters.waitMode = 'none';
	return parameters;
}

export interface SweepRun {
	error?: { message: string; description?: string; constructor: { name: string } };
	sent: SeenRequest[];
	sockets: number;
	output: unknown;
	/** The run's number on the sweep's service (runs on the v2 simulator have none). */
	run?: number;
}

/** The four secrets a swept run's credentials hold (each must stay out of what the run shows). */
export interface SweepSecrets {
	cloudKey: string;
	accessToken: string;
	publishingToken: string;
	repohostToken: string;
}

/** What a Host Cloud operation says of the API generations (its module refuses the other one by name). */
const availability = (parameters: Parameters): GenerationAvailability | undefined =>
	(cloudResources as Record<string, { operations: Record<string, GenerationAvailability> }>)[String(parameters.resource)]?.operations[
		String(parameters.operation)
	];

/** Whether a Host Cloud operation exists only on v2. */
const onlyOnV2 = (parameters: Parameters): boolean => Boolean(availability(parameters)?.notOnV1);

/** Whether a Host Cloud operation exists on both API generations (v1 and v2). */
export const onBothGenerations = (resource: string, operation: string): boolean => {
	const known = availability({ resource, operation });
	return known !== undefined && !known.notOnV1 && !known.notOnV2;
};

/** Where swept runs go: the sweep's loopback service, and the secrets of the credentials made for each run. */
export interface SweepTarget {
	service: SweepService;
	secrets: SweepSecrets;
}

/**
 * The credential a run of `type` with `parameters` uses, stored for it and pointing at `url` (the
 * run's own address), as { credential type: id }.
 */
export function sweepCredential(
	harness: EngineHarness,
	url: string,
	secrets: SweepSecrets,
	type: string,
	parameters: Parameters,
): Record<string, string> {
	if (type !== 'hostCloud') {
		const { accessToken, publishingToken, repohostToken } = secrets;
		const data = hostApiCredential({ accessToken, registryUrl: url, publisherId: 'acme', publishingToken, repohostToken });
		return { hostApi: harness.addCredential('hostApi', data) };
	}
	// Host Cloud's v2-only operations (Get Job Workflow) are swept on v2, with the same key as a bearer token.
	if (onlyOnV2(parameters)) return { hostCloudV2Api: harness.addCredential('hostCloudV2Api', { apiKey: secrets.cloudKey, baseUrl: url }) };
	// Host Cloud's Server operations refuse the cloud: they are swept on a self-hosted server at the same
	// address, behind a proxy header whose value is the cloud key, so the same secret must stay unshown.
	const data =
		parameters.resource === 'server'
			? selfHostedCredential({ serverUrl: url, proxyHeaders: { values: [{ name: 'X-Proxy-Token', value: secrets.cloudKey }] } })
			: hostCloudApiCredential({ apiKey: secrets.cloudKey, baseUrl: url });
	return { hostCloudApi: harness.addCredential('hostCloudApi', data) };
}

/** One swept run: the node, its parameters and input item, and (for the malformed-answer sweep) how the service answers it. */
export interface SweptRunSpec {
	type: string;
	parameters: Parameters;
	item?: HarnessItem;
	answer?: Answer;
}

/**
 * Runs one node on its own address of the sweep's service, within 10 s, and answers what it threw
 * and output, and what reached the service for it by the end of the run (`run`: its number there).
 */
export async function runSwept(harness: EngineHarness, { service, secrets }: SweepTarget, spec: SweptRunSpec): Promise<SweepRun> {
	const { run, url } = service.newRun(spec.answer);
	const v2Only = spec.type === 'hostCloud' && onlyOnV2(spec.parameters);
	const parameters = v2Only ? { apiGeneration: 'v2', ...spec.parameters } : spec.parameters;
	const credentials = sweepCredential(harness, url, secrets, spec.type, parameters);
	const { error, output } = await runBounded(harness, spec.type, parameters, credentials, spec.item ?? ITEM);
	const { sent, sockets } = service.recordOf(run);
	return { error, sent: [...sent], sockets, output, run };
}

/**
 * Runs one Host Cloud node on v2 (`parameters` with `apiGeneration: 'v2'`) against the v2
 * simulator with its Host Cloud V2 API credential: what it threw and output, every request the
 * simulator received (any host), and those of its v2 requests the contract does not allow.
 */
export async function runSweptOnV2(
	harness: EngineHarness,
	sim: V2Simulator,
	credential: string,
	parameters: Parameters,
	item: HarnessItem = ITEM,
): Promise<SweepRun & { offContract: string[] }> {
	sim.reset();
	const { error, output } = await runBounded(harness, 'hostCloud', parameters, { hostCloudV2Api: credential }, item);
	const sent = sim.requests.map((request) => {
		const query = new URLSearchParams(request.query).toString();
		return { method: request.method, url: `${request.path}${query ? `?${query}` : ''}`, body: request.body };
	});
	return { error, sent: sent as SweepRun['sent'], sockets: 0, output, offContract: requestBreaches(sim) };
}

/** One node run within 10 s: what it threw and output (n8n's own refusal of blank required parameters included). */
async function runBounded(
	harness: EngineHarness,
	type: string,
	parameters: Parameters,
	credentials: Record<string, string>,
	item: HarnessItem,
): Promise<Pick<SweepRun, 'error' | 'output'>> {
	// Bounded: a run that never ends is a failure of its own, not a stuck test.
	let timer: NodeJS.Timeout | undefined;
	const deadline = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`no answer within 10 s for ${JSON.stringify(parameters).slice(0, 300)}`)), 10_000);
	});
	try {
		const execution = harness.runNode({ type, parameters: parameters as never, credentials }, [item]).catch((error: unknown) => {
			// n8n refuses a workflow whose required parameters are blank before any node runs (it names them).
			if ((error as Error).name !== 'WorkflowHasIssuesError') throw error;
			return { error: () => error, items: [] };
		});
		const result = await Promise.race([execution, deadline]);
		return { error: result.error('Node') as SweepRun['error'], output: result.items };
	} finally {
		clearTimeout(timer);
	}
}
