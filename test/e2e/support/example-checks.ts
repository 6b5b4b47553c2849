/**
 * How each example in examples/ is run offline and what its output must show. Every example gets
 * the generic checks in cases/examples.ts (it succeeds, no node fails, its last nodes output
 * items, every simulator URL in its output can be fetched); an entry here adds:
 * - `prepare`: changes for an offline run (a download from the internet comes from the stack's
 *   "outside world" server instead), applied to a copy imported for the test;
 * - `run`: how to start it when it has no manual trigger (e.g. activate it and send the trigger's
 *   webhook); default: the editor's "Execute workflow";
 * - `verify`: the example's own promises, checked against the output and the simulator's state;
 * - `cleanup`: undoes what `prepare` or `run` started (a second server...), after the test passed or failed.
 * An example without an entry still runs with the generic checks; its test name says so.
 */
import { outputItems, type ExecutionResult, type RunItem, type StoredWorkflow, type WorkflowJson } from './n8n-client';
import { imageFromServer, SELF_HOSTED_EXAMPLE, startSelfHostedServer, type SelfHostedServer } from './self-hosted';
import { DEMO_PUBLISHER_ID, type HostStack } from './stack';
import { imageFromV2Server, startV2Server, V2_EXAMPLE, type V2Server } from './v2-server';
import { contractBreaches } from '../../support/v2-contract';
import { loadExample, urlsIn } from './workflows';

export interface ExampleCheck {
	prepare?(workflow: WorkflowJson, stack: HostStack): WorkflowJson | Promise<WorkflowJson>;
	run?(workflow: StoredWorkflow, stack: HostStack): Promise<ExecutionResult>;
	verify(execution: ExecutionResult, stack: HostStack, workflow: StoredWorkflow): void | Promise<void>;
	cleanup?(stack: HostStack): Promise<void>;
	/** Longest time the run may take (default 60 s). */
	timeoutMs?: number;
}

function fail(message: string): never {
	throw new Error(message);
}

/** Sets a field of a Set node ("Edit Fields") by name. */
export function setAssignment(workflow: WorkflowJson, nodeName: string, field: string, value: string): WorkflowJson {
	const node = workflow.nodes.find((candidate) => candidate.name === nodeName) ?? fail(`No node "${nodeName}" in "${workflow.name}"`);
	const assignments = (node.parameters.assignments as { assignments?: Array<{ name: string; value: unknown }> } | undefined)?.assignments;
	const assignment = assignments?.find((candidate) => candidate.name === field) ?? fail(`Node "${nodeName}" sets no field "${field}"`);
	assignment.value = value;
	return workflow;
}

/** Sets a parameter of a node (a top-level name or a dotted path). */
export function setParameter(workflow: WorkflowJson, nodeName: string, path: string, value: unknown): WorkflowJson {
	const node = workflow.nodes.find((candidate) => candidate.name === nodeName) ?? fail(`No node "${nodeName}" in "${workflow.name}"`);
	const keys = path.split('.');
	let target = node.parameters as Record<string, unknown>;
	for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
	target[keys[keys.length - 1]!] = value;
	return workflow;
}

function binaryOf(item: RunItem, property = 'data') {
	return (
		item.binary?.[property] ?? fail(`The item has no binary "${property}" (it has: ${Object.keys(item.binary ?? {}).join(', ') || 'none'})`)
	);
}

/** A file an example keeps in n8n's binary data, downloaded as the output panel does: it must have bytes. */
async function downloadable(stack: HostStack, file: NonNullable<RunItem['binary']>[string], what: string): Promise<void> {
	const bytes = await stack.client.binaryContent(file);
	if (bytes.length === 0) fail(`${what} is empty when downloaded from n8n`);
}

/**
 * The self-hosted example runs on a server of the user's own, not on the stack's cloud: a
 * self-hosted server (behind a reverse proxy) and its credential are started for it, the example is
 * imported bound to that credential, as a user picks theirs on import, and both go away after.
 */
function selfHostedExampleCheck(
	file: string,
	verify: (execution: ExecutionResult, stack: HostStack, server: SelfHostedServer) => Promise<unknown>,
): ExampleCheck {
	let server: SelfHostedServer | undefined;
	return {
		timeoutMs: 120000,
		async run(_stored, stack) {
			const example = stack.examples.find((entry) => entry.file === file) ?? fail(`${file} was not imported`);
			server = await startSelfHostedServer(stack);
			const stored = await stack.importWorkflow(example.workflow, `${example.workflow.name} (e2e, on a self-hosted server)`, {
				hostCloudApi: server.credential,
			});
			return await stack.client.runWorkflow(stored.id, { timeoutMs: 120000 });
		},
		async verify(execution, stack) {
			await verify(execution, stack, server ?? fail('No self-hosted server was started'));
		},
		async cleanup() {
			const started = server;
			server = undefined;
			await started?.close();
		},
	};
}

/**
 * The v2 example runs on a server of the v2 jobs API: one (the simulator's v2 flavour, cloud
 * surface) and its Host Cloud V2 API credential are started for it, the example is imported bound
 * to that credential, and both go away after. Its checks end with every exchange of the run valid
 * under the published contract.
 */
function v2ExampleCheck(
	file: string,
	verify: (execution: ExecutionResult, stack: HostStack, server: V2Server) => Promise<unknown>,
): ExampleCheck {
	let server: V2Server | undefined;
	return {
		timeoutMs: 120000,
		async run(_stored, stack) {
			// From the file, not stack.examples: the n8n 1.x suite imports no examples up front.
			const example = loadExample(file);
			server = await startV2Server(stack);
			const stored = await stack.importWorkflow(example.workflow, `${example.workflow.name} (e2e, on a v2 server)`, {
				hostCloudV2Api: server.credential,
			});
			return await stack.client.runWorkflow(stored.id, { timeoutMs: 120000 });
		},
		async verify(execution, stack) {
			const started = server ?? fail('No v2 server was started');
			await verify(execution, stack, started);
			const breaches = contractBreaches(started.simulator);
			if (breaches.length > 0) fail(`Exchanges outside the v2 contract:\n${breaches.join('\n')}`);
		},
		async cleanup() {
			const started = server;
			server = undefined;
			await started?.close();
		},
	};
}

export const EXAMPLE_CHECKS: Record<string, ExampleCheck> = {
	'text-to-image.json': {
		timeoutMs: 120000,
		verify(execution, stack) {
			const urls = Object.values(execution.runData).flatMap((runs) => urlsIn(runs.map((run) => run.data?.main ?? [])));
			const images = urls.filter((url) => url.startsWith(stack.simulator.storageUrl));
			if (images.length === 0)
				fail(`No output URL of the simulator's storage (${stack.simulator.storageUrl}) in the run; URLs: ${urls.join(', ') || 'none'}`);
		},
	},

	'image-to-image.json': {
		timeoutMs: 120000,
		verify(execution, stack) {
			const [result] = outputItems(execution, 'Image to Image');
			if (!result) fail('"Image to Image" output no item');
			const images = result.json.images as Array<{ filename?: string; url?: string }> | undefined;
			if (!images?.[0]?.filename?.startsWith('img2img_'))
				fail(`"Image to Image" output no img2img file: ${JSON.stringify(result.json).slice(0, 300)}`);
			const file = binaryOf(result, 'data');
			if (file.mimeType !== 'image/png') fail(`The downloaded result is ${file.mimeType}, not image/png`);
			// The picture from "Convert to File" was uploaded and is what the graph's Load Image read.
			const { simulator } = stack;
			const job = simulator.cloud.jobs.get(String(result.json.prompt_id));
			if (job?.status !== 'completed') fail(`The cloud job ${String(result.json.prompt_id)} is ${job?.status ?? 'unknown'}, not completed`);
			const submitted = simulator
				.requestsTo('POST', '/api/prompt')
				.map((request) => JSON.parse(request.body).prompt as Record<string, { inputs: Record<string, unknown> }>);
			const image = submitted.reverse().find((graph) => graph['3']?.inputs.pixels)?.['1']?.inputs.image;
			if (!simulator.cloud.uploads.some((upload) => upload.name === image))
				fail(`Load Image reads "${String(image)}", which is not an uploaded file`);
		},
	},

	'publish-node-version.json': {
		prepare: (workflow, stack) => setAssignment(workflow, 'Release details', 'archiveUrl', stack.outside.url('my-node-v1.0.0.zip')),
		verify(execution, stack) {
			const [published] = outputItems(execution, 'Publish version');
			if (!published) fail('"Publish version" output no item');
			const text = JSON.stringify(published.json);
			if (!text.includes('1.0.0')) fail(`"Publish version" output does not name version 1.0.0: ${text.slice(0, 300)}`);
			if (!stack.outside.fetched.some((path) => path.endsWith('my-node-v1.0.0.zip'))) fail('"Download archive" did not fetch the archive');
			const archive = stack.simulator.registry.archiveFor(DEMO_PUBLISHER_ID, 'my-node', '1.0.0');
			if (!archive) fail('The registry received no archive for my-node@1.0.0');
			if (!archive.isZip) fail('The archive was not uploaded as application/zip');
		},
	},

	'upscale-image.json': {
		prepare: (workflow, stack) => setParameter(workflow, 'Upscale 4x', 'imageUrl', stack.outside.url('photo.jpg')),
		timeoutMs: 90000,
		async verify(execution, stack) {
			const [upscaled] = outputItems(execution, 'Upscale 4x');
			if (!upscaled) fail('"Upscale 4x" output no item');
			const url = upscaled.json.url;
			if (typeof url !== 'string' || !/^https?:\/\//.test(url))
				fail(`"Upscale 4x" output has no result URL in "url": ${JSON.stringify(upscaled.json).slice(0, 300)}`);
			const file = binaryOf(upscaled);
			if (!String(file.mimeType ?? '').startsWith('image/')) fail(`The downloaded file is ${file.mimeType}, not an image`);
			await downloadable(stack, file, 'The upscaled image');
		},
	},

	'video-start-dont-wait.json': {
		// The notifications go to the outside world here; video-task-trigger.json pairs it with its trigger.
		prepare: (workflow, stack) => {
			setAssignment(workflow, 'Settings', 'triggerUrl', stack.outside.url('notifications'));
			return setAssignment(workflow, 'Settings', 'startFrameUrl', stack.outside.url('lighthouse.png'));
		},
		verify(execution) {
			const [started] = outputItems(execution, 'Start video');
			if (!started || typeof started.json.task_id !== 'string' || started.json.task_id === '') {
				fail(`"Start video" returned no task_id: ${JSON.stringify(started?.json).slice(0, 300)}`);
			}
		},
	},

	'video-task-trigger.json': {
		timeoutMs: 90000,
		// The pair the two video examples describe: activate this workflow, then start a video whose
		// callback URL is its trigger's production URL; the simulator's notifications start it.
		async run(workflow, stack) {
			await stack.client.activateWorkflow(workflow.id);
			try {
				const known = await stack.client.executionIds(workflow.id);
				const starter = stack.examples.find((example) => example.file === 'video-start-dont-wait.json');
				if (!starter) fail('video-task-trigger.json is started by video-start-dont-wait.json, which is missing');
				const triggerUrl = stack.webhookUrl(workflow, 'Host Task Trigger', 'host-task');
				const prepared = setAssignment(JSON.parse(JSON.stringify(starter.workflow)) as WorkflowJson, 'Settings', 'triggerUrl', triggerUrl);
				setAssignment(prepared, 'Settings', 'startFrameUrl', stack.outside.url('lighthouse.png'));
				const stored = await stack.importWorkflow(prepared, `${starter.workflow.name} (e2e, to the trigger)`);
				const started = await stack.client.runWorkflow(stored.id);
				if (started.status !== 'success') fail(`video-start-dont-wait.json failed: ${started.error?.message ?? started.status}`);
				return await stack.client.waitForNewExecution(workflow.id, known, { timeoutMs: 60000 });
			} finally {
				await stack.client.deactivateWorkflow(workflow.id);
			}
		},
		async verify(execution, stack) {
			const [notification] = outputItems(execution, 'Host Task Trigger');
			if (!notification) fail('"Host Task Trigger" output no item');
			const [video] = outputItems(execution, 'Get video');
			if (!video) fail('"Get video" output no item');
			if (video.json.task_id !== notification.json.task_id)
				fail(`"Get video" read task ${String(video.json.task_id)}, the notification was for ${String(notification.json.task_id)}`);
			const file = binaryOf(video);
			if (!String(file.mimeType ?? '').startsWith('video/')) fail(`The fetched file is ${file.mimeType}, not a video`);
			await downloadable(stack, file, 'The video');
		},
	},

	[SELF_HOSTED_EXAMPLE]: selfHostedExampleCheck(SELF_HOSTED_EXAMPLE, (execution, stack, server) =>
		imageFromServer(execution, 'Text to Image', stack, server),
	),
	// The image, then Free Memory on the server between the two jobs, then the video made from that image.
	'self-hosted-image-then-video.json': selfHostedExampleCheck('self-hosted-image-then-video.json', async (execution, stack, server) => {
		await imageFromServer(execution, 'Make Image', stack, server);
		const freed = outputItems(execution, 'Free GPU Memory')[0]?.json;
		if (freed?.requested !== true) fail(`"Free GPU Memory" output ${JSON.stringify(freed)}`);
		const video = outputItems(execution, 'Make Video')[0];
		if (video?.json.status !== 'completed' || video.binary?.data?.mimeType !== 'video/mp4')
			fail(`"Make Video" output no video: ${JSON.stringify(video?.json).slice(0, 300)}`);
	}),

	// Execute on v2: one job submitted and followed, its image downloaded from its output asset.
	[V2_EXAMPLE]: v2ExampleCheck(V2_EXAMPLE, async (execution, stack, server) => {
		const { jobId } = await imageFromV2Server(execution, 'Text to Image', stack, server);
		const submits = server.simulator.requestsTo('POST', '/api/v2/jobs').filter((request) => request.path === '/api/v2/jobs');
		if (submits.length !== 1 || server.simulator.v2.jobs.size !== 1)
			fail(`The run submitted ${submits.length} time(s) and the server has ${server.simulator.v2.jobs.size} job(s), not one (${jobId})`);
	}),

	'text-to-music.json': {
		timeoutMs: 90000,
		async verify(execution, stack) {
			const takes = outputItems(execution, 'Generate music');
			if (takes.length === 0) fail('"Generate music" output no item');
			for (const take of takes) {
				const audio = binaryOf(take);
				if (!String(audio.mimeType ?? '').startsWith('audio/')) fail(`A take's file is ${audio.mimeType}, not audio`);
				if (!audio.fileName) fail('A take has no file name');
				await downloadable(stack, audio, `The take "${audio.fileName}"`);
			}
		},
	},
};
