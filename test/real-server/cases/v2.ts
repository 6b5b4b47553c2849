/**
 * The graphs Host Cloud carries on the v2 jobs API, judged by the real upstream server. v2 takes
 * the API-format graph verbatim (`POST /api/v2/jobs {workflow}`), so what a v2 job runs is what the
 * node built: the graph with Set Inputs applied, or a UI-format workflow converted on v1 (the move
 * docs/host-cloud.md describes: convert once with a v1 credential, pass the result on). Each graph
 * the v2 simulator received is sent as it is to the real server, which must take it and, for a
 * model-free one, run it to the image it describes.
 */
import { EngineHarness } from '../../support/engine';
import { emptyImage, type Graph, save } from '../../support/contract/scenarios';
import { selfHostedCredential } from '../../support/credential-fixtures';
import { contractBreaches } from '../../support/v2-contract';
import { startSimulator, type V2Simulator } from '../../../simulator/server';
import { drainQueue, realServer } from '../support/real-server';

/** The graph of each job the v2 simulator was sent, in order. */
function postedGraphs(sim: V2Simulator): Graph[] {
	return sim.v2.exchanges
		.filter((exchange) => exchange.method === 'POST' && exchange.path.endsWith('/api/v2/jobs') && exchange.status === 201)
		.map((exchange) => (exchange.body as { workflow: Graph }).workflow);
}

/** Sends the graph to the real server as its own client would, and waits for its history: the outputs, or why it was refused. */
async function runOnRealServer(graph: Graph): Promise<{ refused?: unknown; images?: Array<{ filename: string; subfolder: string; type: string }> }> {
	const answer = await fetch(`${realServer().url}/prompt`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ prompt: graph }),
	});
	const body = (await answer.json()) as { prompt_id?: string };
	if (answer.status !== 200 || !body.prompt_id) return { refused: body };
	for (let waited = 0; waited < 60_000; waited += 200) {
		const history = (await (await fetch(`${realServer().url}/history/${body.prompt_id}`)).json()) as Record<
			string,
			{ status?: { completed?: boolean; status_str?: string }; outputs?: Record<string, { images?: never[] }> }
		>;
		const entry = history[body.prompt_id];
		if (entry?.status?.completed) return { images: Object.values(entry.outputs ?? {}).flatMap((output) => output.images ?? []) };
		if (entry?.status?.status_str === 'error') return { refused: entry.status };
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
	throw new Error(`the real server did not finish ${body.prompt_id} within a minute`);
}

/** The pixel size of a PNG the real server serves. */
async function servedSize(image: { filename: string; subfolder: string; type: string }): Promise<number[]> {
	const query = new URLSearchParams(image).toString();
	const png = Buffer.from(await (await fetch(`${realServer().url}/view?${query}`)).arrayBuffer());
	return [png.readUInt32BE(16), png.readUInt32BE(20)];
}

describe('Host Cloud on v2: the graphs its jobs carry, run by the real upstream server', () => {
	const harness = new EngineHarness();
	let sim: V2Simulator;
	let v2Credential: string;
	let v1Credential: string;

	beforeAll(async () => {
		sim = await startSimulator({ flavour: 'v2', nodeMs: 5, v2: { surface: 'cloud' } });
		v2Credential = harness.addCredential('hostCloudV2Api', { baseUrl: sim.baseUrl, apiKey: sim.apiKey });
		v1Credential = harness.addCredential('hostCloudApi', selfHostedCredential({ serverUrl: realServer().url, proxyHeaders: { values: [] } }));
	});
	afterEach(async () => {
		await drainQueue(realServer().url);
	});
	afterAll(async () => {
		await sim.close();
	});

	const onV2 = (parameters: Record<string, unknown>) =>
		harness.runNode({
			type: 'hostCloud',
			parameters: { apiGeneration: 'v2', resource: 'workflow', operation: 'execute', downloadFiles: false, ...parameters } as never,
			credentials: { hostCloudV2Api: v2Credential },
		});

	test('Execute on v2 with Set Inputs: the graph the job carried runs on the real server to an image of the size set', async () => {
		const graph: Graph = { '1': emptyImage(0x3366cc), '2': save('1', 'n8n-real-v2') };
		const result = await onV2({
			workflow: JSON.stringify(graph),
			inputOverrides: {
				values: [
					{ nodeId: '1', inputName: 'width', value: '72' },
					{ nodeId: '1', inputName: 'height', value: '40' },
				],
			},
		});
		expect(result.error('Node')?.message).toBeUndefined();
		const [carried] = postedGraphs(sim).slice(-1);
		expect(carried!['1']!.inputs).toMatchObject({ width: 72, height: 40 });
		const ran = await runOnRealServer(carried!);
		expect(ran.refused).toBeUndefined();
		expect(ran.images).toHaveLength(1);
		expect(await servedSize(ran.images![0]!)).toEqual([72, 40]);
	});

	test('a UI-format workflow converted on v1 (the real server’s definitions), then run on v2: the real server runs what v2 carried', async () => {
		// An editor export of EmptyImage → SaveImage, as a user saves it.
		const uiWorkflow = {
			last_node_id: 2,
			last_link_id: 1,
			nodes: [
				{ id: 1, type: 'EmptyImage', pos: [0, 0], size: [300, 130], flags: {}, order: 0, mode: 0, inputs: [], outputs: [{ name: 'IMAGE', type: 'IMAGE', links: [1] }], properties: {}, widgets_values: [48, 24, 1, 0xcc3366] },
				{ id: 2, type: 'SaveImage', pos: [400, 0], size: [300, 270], flags: {}, order: 1, mode: 0, inputs: [{ name: 'images', type: 'IMAGE', link: 1 }], outputs: [], properties: {}, widgets_values: ['n8n-real-v2-ui'] },
			],
			links: [[1, 1, 0, 2, 0, 'IMAGE']],
			groups: [],
			config: {},
			extra: {},
			version: 0.4,
		};
		const converted = await harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'convert', workflow: JSON.stringify(uiWorkflow) } as never,
			credentials: { hostCloudApi: v1Credential },
		});
		expect(converted.error('Node')?.message).toBeUndefined();
		const apiGraph = converted.items[0]!.json.workflow as Graph;
		expect(apiGraph).toBeDefined();

		const result = await onV2({ workflow: JSON.stringify(apiGraph) });
		expect(result.error('Node')?.message).toBeUndefined();
		const [carried] = postedGraphs(sim).slice(-1);
		// Verbatim: what the converter made is what the job carried.
		expect(carried).toEqual(apiGraph);
		const ran = await runOnRealServer(carried!);
		expect(ran.refused).toBeUndefined();
		expect(await servedSize(ran.images![0]!)).toEqual([48, 24]);
		expect(contractBreaches(sim)).toEqual([]);
	});
});
