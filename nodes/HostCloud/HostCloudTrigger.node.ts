import type { INodeProperties, INodeType, INodeTypeDescription, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { resultFilesProperties } from '../shared/descriptions/result-files';
import { listenForEndedJobs } from './helpers/finished-jobs/listen';
import { POLL_SECONDS } from './helpers/finished-jobs/settings';

/** The trigger's form (read and checked by `helpers/finished-jobs/settings.ts` when it starts). */
const triggerProperties: INodeProperties[] = [
	{
		displayName:
			'Starts for every job of the account (Host Cloud) or of the server (self-hosted), whoever started it: the editor, a script or another workflow. On the cloud it listens on the account’s WebSocket; a self-hosted server is asked for its history every few seconds. A job that both starts and ends while n8n is not listening (n8n stopped, or the connection lost) cannot be found afterwards on the cloud.',
		name: 'notice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'options',
		options: [
			{ name: 'Succeeded Jobs Only', value: 'succeeded', action: 'When a job succeeds', description: 'Jobs that produced their outputs' },
			{
				name: 'Every Finished Job',
				value: 'finished',
				action: 'When a job finishes',
				description: 'Succeeded, failed (with the failure in words) or interrupted',
			},
		],
		default: 'succeeded',
		description: 'Which jobs start the workflow',
	},
	{
		displayName: 'Only Outputs of Nodes',
		name: 'outputNodes',
		type: 'string',
		default: '',
		placeholder: '9, SaveImage',
		description:
			'Node IDs or node types of the graph (comma-separated) whose files are wanted, e.g. SaveImage to leave out previews. A succeeded job without files from them does not start the workflow. Leave empty for every node’s files.',
	},
	{
		displayName: 'Include Jobs Started by Host Cloud Nodes',
		name: 'includeOwnJobs',
		type: 'boolean',
		default: false,
		description:
			'Whether jobs that a Host Cloud node of any workflow of this n8n submitted start this workflow too (they already hand their outputs to the next node). The trigger knows such a job by the tag its queue or history entry carries, which names this n8n.',
	},
	...resultFilesProperties({}, 'the files of each job'),
	{
		displayName: 'Poll Every (Seconds)',
		name: 'pollSeconds',
		type: 'number',
		typeOptions: { minValue: POLL_SECONDS.min, maxValue: POLL_SECONDS.max },
		default: 15,
		description:
			'Self-hosted servers only: how often the server’s history is read (its last 100 jobs). On the cloud the trigger listens and does not poll.',
	},
];

export class HostCloudTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Host Cloud Trigger',
		name: 'hostCloudTrigger',
		icon: { light: 'file:../../icons/host-cloud-trigger.svg', dark: 'file:../../icons/host-cloud-trigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"] === "finished" ? "Every finished job" : "Succeeded jobs"}}',
		description: 'Starts the workflow when a job of the Host cloud or of your ComfyUI-compatible server finishes, whoever started it',
		defaults: { name: 'Host Cloud Trigger' },
		// What the editor's trigger panel says; without it n8n makes up "Pull in events from Host Cloud".
		triggerPanel: {
			header: 'Pull in jobs as they finish on the Host cloud or your server',
			executionsHelp: {
				inactive:
					"<b>While building your workflow</b>, click the 'execute step' button: the trigger shows the latest job it knows to have finished, or else waits for the next one to finish. <br /> <br /><b>Once you're happy with your workflow</b>, publish it. Then every job that finishes starts it. These executions will show up in the <a data-key='executions'>executions list</a>, but not in the editor.",
				active:
					"<b>While building your workflow</b>, click the 'execute step' button: the trigger shows the latest job it knows to have finished, or else waits for the next one to finish. <br /> <br /><b>Your workflow will also execute automatically</b>, since it's published: every job that finishes starts it. These executions will show up in the <a data-key='executions'>executions list</a>, but not in the editor.",
			},
			activationHint: {
				inactive:
					'Once you’ve finished building your workflow, publish it to start it for every job that finishes (you just won’t see those executions here).',
				active: 'This node also starts the workflow for every job that finishes (but those executions won’t show up here).',
			},
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'hostCloudApi', required: true }],
		properties: triggerProperties,
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await listenForEndedJobs(this);
	}
}
