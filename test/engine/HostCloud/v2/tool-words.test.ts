/**
 * What a Host Cloud tool tells the agent on v2 (docs/ai-agents.md, "Host Cloud on v2"): on v2 no
 * tool reads a job by id (Get Status, Wait for Completion, Cancel Jobs and Get Job Workflow are
 * refused as tools), so neither the description of Execute and Submit nor what they answer may
 * send the agent to one. Built and called as the MCP Server Trigger does, against the simulator's
 * v2 flavour; v1's words stay as they were.
 */
import { startSimulator, type V2Simulator } from '../../../../simulator/server';
import { EngineHarness } from '../../../support/engine';
import { txt2img } from '../../../support/cloud';
import { hostCloudApiCredential } from '../../../support/credential-fixtures';
import { registerToolTypes, toolsFor, type ToolNodeSpec } from '../../../support/tools';

/** The tools v2 refuses, by the names an agent or a description would use. */
const REFUSED_ON_V2 = /Get Status|Wait for Completion|Cancel Jobs|Get Job Workflow/;

const harness = new EngineHarness();
let sim: V2Simulator;
let v2 = '';
let v1 = '';
beforeAll(async () => {
	registerToolTypes(harness);
	sim = await startSimulator({ flavour: 'v2', nodeMs: 5, v2: { surface: 'cloud' } });
	v2 = harness.addCredential('hostCloudV2Api', { baseUrl: sim.baseUrl, apiKey: sim.apiKey }, 'Host Cloud V2 API');
	v1 = harness.addCredential('hostCloudApi', hostCloudApiCredential({ baseUrl: sim.baseUrl, apiKey: sim.apiKey }));
});
afterAll(async () => await sim.close());

const tool = (name: string, operation: string, generation: 'v1' | 'v2'): ToolNodeSpec => ({
	name,
	type: 'hostCloud',
	parameters: {
		...(generation === 'v2' ? { apiGeneration: 'v2' } : {}),
		resource: 'workflow',
		operation,
		workflow: JSON.stringify(txt2img()),
		inputOverrides: { values: [{ nodeId: '6', inputName: 'text', value: "={{ $fromAI('prompt', 'What to draw') }}" }] },
	},
	credentials: generation === 'v2' ? { hostCloudV2Api: v2 } : { hostCloudApi: v1 },
});

test('on v2, the Execute and Submit tools describe their answers with job_id and name no tool v2 refuses', async () => {
	const [execute, submit] = await toolsFor(harness, tool('Make', 'execute', 'v2'), tool('Start', 'submit', 'v2'));
	for (const described of [execute!.description, submit!.description]) {
		expect(described).not.toMatch(REFUSED_ON_V2);
		expect(described).toContain('"job_id"');
	}
	expect(execute!.description).toMatch(/^Generates images, video or audio/);
	expect(submit!.description).toMatch(/^Starts generating images, video or audio/);
});

test('on v1, both still point at the Get Status tool, which v1 serves', async () => {
	const [execute, submit] = await toolsFor(harness, tool('Make', 'execute', 'v1'), tool('Start', 'submit', 'v1'));
	expect(execute!.description).toContain('the Host Cloud "Get Status" tool');
	expect(submit!.description).toContain('The Host Cloud "Get Status" tool');
});

test("on v2, Submit's answer names its job and no tool v2 refuses", async () => {
	const [submit] = await toolsFor(harness, tool('Start', 'submit', 'v2'));
	const [answer] = JSON.parse(await submit!.invoke({ prompt: 'a fox' })) as Array<Record<string, string>>;

	expect(answer).toMatchObject({ status: 'running', job_id: expect.any(String), prompt_id: answer!.job_id });
	expect(sim.v2.jobs.has(answer!.job_id!)).toBe(true);
	expect(answer!.message).toMatch(/No tool can collect it on the v2 API/);
	expect(answer!.message.replace('Host Cloud Wait for Completion and this job_id', '')).not.toMatch(REFUSED_ON_V2);
});
