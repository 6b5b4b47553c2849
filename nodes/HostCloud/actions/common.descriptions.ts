/**
 * Host Cloud's parameters that several operations show, each read by a helper: the workflow and its
 * inputs (`helpers/submit/prepare-workflow.ts`), the wait settings (`helpers/jobs/wait-settings.ts`),
 * the output files (`helpers/jobs/run-jobs.ts`), the prompt_ids (`helpers/job-reports/prompt-id.ts`) and
 * the File operations' fields (`helpers/files/file-fields.ts`). Only this node's operation files
 * import it. Where a helper checks a field by its definition, the operation hands it in.
 */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { collectionOptions, fieldProperty, type FieldDefinition } from '../../shared/items/fields';
import { resultFilesProperties } from '../../shared/descriptions/result-files';
import { NOT_AS_TOOL } from '../../shared/descriptions/tool-options';
import { DOWNLOAD_FILES } from '../../shared/binary/result-files';
import { maxWaitMinutesField, pollIntervalSecondsField, waitOptionsProperty } from '../../shared/descriptions/wait-settings';
import { BEFORE_WAIT_OPTIONS, LONGEST_PAUSE_SECONDS, LONGEST_WAIT_MINUTES, SINCE_WAIT_OPTIONS } from '../../shared/waits/wait-settings';
import {
	INPUT_IMAGES_FIELD,
	OVERRIDES_FIELD,
	PARTNER_KEY_FIELD,
	WORKFLOW_FIELD,
	type SubmitFields,
} from '../helpers/submit/prepare-workflow';
import { JOB_TAG_KEY } from '../helpers/ownership/job-tag';
import { FILES_CONVENTION_SINCE_VERSION } from '../helpers/jobs/run-jobs';
import { PROMPT_ID_FIELD, type PromptIdList } from '../helpers/job-reports/prompt-id';
import type { WaitFields } from '../helpers/jobs/wait-settings';

// The workflow and its inputs (Execute, Submit; Convert to API Format shows the first two).
export const workflowProperty: INodeProperties = {
	displayName: WORKFLOW_FIELD,
	name: 'workflow',
	type: 'json',
	default: '',
	required: true,
	description:
		'The workflow to run, as the editor saves it (Workflow → Save or Export) or in API format (Workflow → Export (API)). Paste the file, or use an expression to take it from an earlier node.',
};

export const overridesProperty: INodeProperties = {
	displayName: OVERRIDES_FIELD,
	name: 'inputOverrides',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true, sortable: true },
	placeholder: 'Add Input',
	default: {},
	description: 'Change inputs of the workflow (a prompt, a seed, a size...) without editing its JSON',
	options: [
		{
			displayName: 'Input',
			name: 'values',
			values: [
				{
					displayName: 'Node Name or ID',
					name: 'nodeId',
					type: 'options',
					typeOptions: { loadOptionsMethod: 'getWorkflowNodes', loadOptionsDependsOn: ['workflow'] },
					default: '',
					description:
						'The node whose input to set. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				},
				{
					displayName: 'Input Name or ID',
					name: 'inputName',
					type: 'options',
					typeOptions: { loadOptionsMethod: 'getNodeInputs', loadOptionsDependsOn: ['workflow', '&nodeId'] },
					default: '',
					description:
						'The input to set, for example text, seed or steps. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				},
				{
					displayName: 'Value',
					name: 'value',
					type: 'string',
					default: '',
					description: 'The new value. Numbers and true/false are converted to match what the input holds now.',
				},
				{
					displayName: 'Value From Server List Name or ID',
					name: 'listedValue',
					type: 'options',
					typeOptions: { loadOptionsMethod: 'getInputValues', loadOptionsDependsOn: ['workflow', '&nodeId', '&inputName'] },
					default: '',
					description:
						'For an input the server lists values for (a checkpoint, LoRA, sampler or scheduler): pick one of the server’s own values, used in place of Value. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				},
			],
		},
	],
};

const inputImagesProperty: INodeProperties = {
	displayName: INPUT_IMAGES_FIELD,
	name: 'inputImages',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Input Image',
	default: {},
	description: 'Upload images from earlier nodes and load each into a Load Image node of the workflow',
	options: [
		{
			displayName: 'Image',
			name: 'values',
			values: [
				{
					displayName: 'Input Binary Field',
					name: 'binaryPropertyName',
					type: 'string',
					default: 'data',
					required: true,
					description: 'The binary property of the input item that holds the image',
				},
				{
					displayName: 'Load Image Node Name or ID',
					name: 'nodeId',
					type: 'options',
					typeOptions: { loadOptionsMethod: 'getImageLoaderNodes', loadOptionsDependsOn: ['workflow'] },
					default: '',
					description:
						'The Load Image node that should load the uploaded image (its image input is set to the uploaded file). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				},
			],
		},
	],
};

export const workflowProperties: INodeProperties[] = [workflowProperty, overridesProperty, inputImagesProperty];

const EXTRA_DATA: FieldDefinition = {
	name: 'extraData',
	displayName: 'Extra Data (JSON)',
	kind: 'jsonObject',
	description: `Advanced: more fields for the extra_data object sent with the workflow. The key "${JOB_TAG_KEY}" is refused: the node sets it to say which n8n execution, workflow, node and item started the job.`,
};

const PARTNER_API_KEY: FieldDefinition = {
	name: 'partnerApiKey',
	displayName: PARTNER_KEY_FIELD,
	kind: 'options',
	options: [
		{
			name: 'Add When Needed',
			value: 'auto',
			description: 'Add it when the workflow has partner nodes (nodes that call external AI services)',
		},
		{ name: 'Always Add', value: 'always' },
		{ name: 'Never Add', value: 'never', description: 'Partner nodes will then fail with an insufficient funds error' },
	],
	default: 'auto',
	description:
		'Partner nodes are billed through your API key, sent as extra_data.api_key_host_org. The node finds them from the server’s node definitions. On a self-hosted server the key is the credential’s Platform API Key, sent as extra_data.api_key_comfy_org (the name upstream ComfyUI reads), and nothing is sent when it is empty. With a Host Cloud V2 API credential (the v2 API) there are no node definitions to find partner nodes by: the key (the Platform API Key, else the API Key) is sent as extra_data.api_key_comfy_org whenever one is set, unless this is Never Add.',
};

/** The submit's fields that Execute and Submit hand to `prepareWorkflow`. */
export const SUBMIT_FIELDS: SubmitFields = { extraData: EXTRA_DATA, partnerApiKey: PARTNER_API_KEY };

/** Fields of "Additional Fields" about the submit itself. */
export const submitFields: INodeProperties[] = [EXTRA_DATA, PARTNER_API_KEY].map(fieldProperty);

// Waiting for jobs (Execute, Wait for Completion).
const DEFAULT_MAX_WAIT_MINUTES = 30;
const MAX_WAIT_DESCRIPTION = 'Longest time to wait for one job. 0 waits without limit.';
const POLL_DESCRIPTION =
	'How often to ask for a job’s status when live progress is not available (no WebSocket, or it went quiet or closed)';

const INCLUDE_PREVIEW: FieldDefinition = {
	name: 'includePreview',
	displayName: 'Include Preview Image',
	kind: 'boolean',
	default: false,
	description: 'Whether to add the last in-progress preview the cloud sent for the job as binary data named "preview"',
};

const MAX_CONCURRENT_JOBS: FieldDefinition = {
	name: 'maxConcurrentJobs',
	displayName: 'Max Concurrent Jobs',
	kind: 'integer',
	min: 1,
	max: 50,
	default: 3,
	description:
		'How many items run on the cloud at the same time. Match your plan’s parallel limit (1, 3 or 5); extra jobs wait in the cloud queue.',
};

const INCLUDE_RAW_OUTPUTS: FieldDefinition = {
	name: 'includeRawOutputs',
	displayName: 'Include Raw Outputs',
	kind: 'boolean',
	default: false,
	description: 'Whether to add the outputs exactly as the cloud reported them, by node ID (under "outputs")',
};

const ON_TIMEOUT: FieldDefinition = {
	name: 'onTimeout',
	displayName: 'On Timeout',
	kind: 'options',
	options: [
		{ name: 'Cancel the Job', value: 'cancel', description: 'Stop the job on the cloud so it uses no more credits' },
		{ name: 'Leave It Running', value: 'keep', description: 'Collect it later with Wait for Completion and its prompt_id' },
	],
	default: 'cancel',
	description: 'What happens to a job that is still running when Max Wait is reached',
};

const SILENCE: FieldDefinition = {
	name: 'silenceSeconds',
	displayName: 'Silence Timeout (Seconds)',
	kind: 'number',
	min: 0.01,
	max: LONGEST_PAUSE_SECONDS,
	default: 15,
	description: 'When the live progress connection sends nothing for this long, the node checks on its jobs by asking for their status',
};

const USE_WEBSOCKET: FieldDefinition = {
	name: 'useWebSocket',
	displayName: 'Use Live Progress (WebSocket)',
	kind: 'boolean',
	default: true,
	description:
		'Whether to follow jobs over the live progress connection (on v1 a WebSocket, on v2 the job’s event stream), which reports the end of a job at once. When off, or where n8n has no WebSocket client, the node polls the job status instead.',
};

const POLL_INTERVAL = pollIntervalSecondsField(2, POLL_DESCRIPTION);

/** Version 2: "Wait Options". */
const WAIT_OPTIONS: FieldDefinition[] = [
	maxWaitMinutesField(DEFAULT_MAX_WAIT_MINUTES, MAX_WAIT_DESCRIPTION, true),
	POLL_INTERVAL,
	ON_TIMEOUT,
	SILENCE,
	USE_WEBSOCKET,
];

/** Version 1: the same settings among "Additional Fields", Max Wait in seconds. */
const V1_MAX_WAIT_SECONDS: FieldDefinition = {
	name: 'maxWaitSeconds',
	displayName: 'Max Wait (Seconds)',
	kind: 'number',
	min: 0,
	max: LONGEST_WAIT_MINUTES * 60,
	default: DEFAULT_MAX_WAIT_MINUTES * 60,
	description: MAX_WAIT_DESCRIPTION,
};
const V1_WAIT_FIELDS: FieldDefinition[] = [INCLUDE_PREVIEW, V1_MAX_WAIT_SECONDS, POLL_INTERVAL, ON_TIMEOUT, SILENCE, USE_WEBSOCKET];

/** The wait fields Execute, Wait for Completion and Get Status hand to the job helpers. */
export const WAIT_FIELDS: WaitFields = {
	waitOptions: WAIT_OPTIONS,
	v1WaitFields: V1_WAIT_FIELDS,
	includePreview: INCLUDE_PREVIEW,
	maxConcurrentJobs: MAX_CONCURRENT_JOBS,
	includeRawOutputs: INCLUDE_RAW_OUTPUTS,
};

/**
 * The wait parameters of an operation for both versions: `additional` are the operation's other
 * "Additional Fields" (given as parameters), `concurrency` whether it offers Max Concurrent Jobs.
 */
export function waitProperties(additional: INodeProperties[], concurrency: boolean): INodeProperties[] {
	const own = concurrency ? [MAX_CONCURRENT_JOBS] : [];
	const previewOnV1 = { ...fieldProperty(INCLUDE_PREVIEW), displayOptions: { show: { '/apiGeneration': ['v1'] } } }; // v2 keeps none
	const additionalFields = (fields: FieldDefinition[], show: NonNullable<IDisplayOptions['show']>): INodeProperties => ({
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show },
		options: collectionOptions(fields, [...additional, previewOnV1]),
	});
	return [
		waitOptionsProperty(WAIT_OPTIONS),
		additionalFields(own, SINCE_WAIT_OPTIONS),
		additionalFields([...own, ...V1_WAIT_FIELDS.filter((field) => field !== INCLUDE_PREVIEW)], BEFORE_WAIT_OPTIONS),
	];
}

// Output files (Execute, Wait for Completion).
export const downloadFilesProperties: INodeProperties[] = [
	{
		displayName: DOWNLOAD_FILES,
		name: 'downloadFiles',
		type: 'boolean',
		default: false,
		description:
			'Whether to add the output files to the item as binary data (image_0, video_0, audio_0...). Either way the item lists every file with a download URL.',
		// A model never sees binary data: a tool call downloads nothing.
		displayOptions: { show: { '@version': [1, 2] }, ...NOT_AS_TOOL },
	},
	...resultFilesProperties({ '@version': [{ _cnd: { gte: FILES_CONVENTION_SINCE_VERSION } }] }, 'the output files'),
];

export const rawOutputsProperty = fieldProperty(INCLUDE_RAW_OUTPUTS);

// The prompt_ids of the job operations.
export const promptIdProperty: INodeProperties = {
	displayName: PROMPT_ID_FIELD,
	name: 'promptId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. 6f1c2a9e-0b7d-4c52-9a57-2f0c3d1e8b44',
	description:
		'The prompt_id returned when the workflow was submitted (drag it in from the output of Submit). With a Host Cloud V2 API credential, the job_id (Submit answers it as prompt_id too).',
};

/** The field of a list of prompt_ids, saying what is done with them and how many it takes. */
export function promptIdListProperty(list: PromptIdList, what: string, displayOptions?: IDisplayOptions): INodeProperties {
	return {
		displayName: list.field,
		name: list.name,
		type: 'string',
		default: '',
		required: true,
		...(displayOptions ? { displayOptions } : {}),
		placeholder: 'e.g. 6f1c2a9e-0b7d-4c52-9a57-2f0c3d1e8b44, 0d3e…',
		description: `The prompt_id of each job ${what}, separated by commas or spaces (or a list from an expression)${list.max ? `; at most ${list.max}` : ''}`,
	};
}

// The File operations.
/** Shown on one API generation only (a node saved before v2 has none: v1). */
export const onGeneration = (generation: 'v1' | 'v2'): IDisplayOptions => ({ show: { apiGeneration: [generation] } });

/** v2 names an output file by its asset ID; v1 by file name, subfolder and type (fields shown on v1 only). */
export const assetIdProperty: INodeProperties = {
	displayName: 'Asset ID',
	name: 'assetId',
	type: 'string',
	default: '',
	required: true,
	displayOptions: onGeneration('v2'),
	placeholder: 'e.g. 9f8a1c0d-2b3e-4f56-8a7b-1c2d3e4f5a6b',
	description: 'The ID of the asset: the ID of an output of a v2 job, or of an upload',
};

/** v2 only: how long an uploaded asset is kept (the contract's expires_in). */
export const EXPIRES_IN: FieldDefinition = {
	name: 'expiresIn',
	displayName: 'Keep For (Seconds)',
	kind: 'integer',
	min: 60,
	max: 604800,
	description: 'How long the asset is kept, from 60 (a minute) to 604800 (seven days). Leave it out for the account’s default.',
};

export const fileReferenceProperties: INodeProperties[] = [
	{
		displayName: 'File Name',
		name: 'filename',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. ComfyUI_00001_.png',
		description: 'The filename of the file reference, for example the filename of an image in the output of Execute',
	},
	{
		displayName: 'Subfolder',
		name: 'subfolder',
		type: 'string',
		default: '',
		description: 'The subfolder of the file reference; leave empty when it has none',
	},
	{
		displayName: 'Type',
		name: 'fileType',
		type: 'options',
		options: [
			{ name: 'Input', value: 'input', description: 'A file you uploaded' },
			{ name: 'Output', value: 'output', description: 'A file a workflow saved' },
			{ name: 'Temp', value: 'temp', description: 'A preview file a workflow made' },
		],
		default: 'output',
		description: 'The type of the file reference',
	},
].map((property): INodeProperties => ({ ...(property as INodeProperties), displayOptions: onGeneration('v1') }));

export const binaryPropertyProperty: INodeProperties = {
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	description: 'The binary property of the input item that holds the file to upload',
};

/** Where the cloud keeps an uploaded file: the `type` field of the upload's body. */
export const UPLOAD_TYPE: FieldDefinition = {
	name: 'type',
	displayName: 'Type',
	kind: 'options',
	options: [
		{ name: 'Input', value: 'input', description: 'For Load Image nodes (the usual choice)' },
		{ name: 'Output', value: 'output' },
		{ name: 'Temp', value: 'temp' },
	],
	default: 'input',
	description: 'Where the cloud keeps the file',
};
