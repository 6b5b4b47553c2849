import type { INodeType, INodeTypeDescription, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { listenForEndedJobs } from './helpers/finished-jobs/listen';
import { triggerProperties } from './helpers/finished-jobs/settings';

export class HostCloudTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Host Cloud Trigger',
		name: 'hostCloudTrigger',
		icon: { light: 'file:../../icons/host.svg', dark: 'file:../../icons/host.dark.svg' },
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
