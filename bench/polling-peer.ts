/**
 * The baseline: what existing n8n nodes for this kind of service do. Submit the workflow, poll
 * the job status every second, then read the outputs from the job record and ask /api/view for
 * each file's signed URL. Run through the same engine, against the same simulator.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

export const POLLING_PEER_TYPE = 'bench.pollingPeer';

export class PollingPeer implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Polling Peer',
		name: 'pollingPeer',
		group: ['transform'],
		version: 1,
		description: 'Baseline: submit, poll every second, fetch outputs',
		defaults: { name: 'Polling Peer' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'hostCloudApi', required: true }],
		properties: [
			{ displayName: 'Workflow', name: 'workflow', type: 'json', default: '{}' },
			{ displayName: 'Poll Interval (Ms)', name: 'pollMs', type: 'number', default: 1000 },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const credentials = await this.getCredentials('hostCloudApi');
		const base = String(credentials.baseUrl);
		const headers = { 'X-API-Key': String(credentials.apiKey) };
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < this.getInputData().length; i++) {
			const prompt = JSON.parse(this.getNodeParameter('workflow', i) as string) as IDataObject;
			const pollMs = this.getNodeParameter('pollMs', i) as number;
			const submitted = (await this.helpers.httpRequest({ method: 'POST', url: `${base}/api/prompt`, headers, body: { prompt }, json: true })) as { prompt_id: string };
			for (;;) {
				await sleep(pollMs);
				const status = (await this.helpers.httpRequest({ url: `${base}/api/job/${submitted.prompt_id}/status`, headers, json: true })) as { status: string };
				if (['completed', 'failed', 'cancelled'].includes(status.status)) break;
			}
			const job = (await this.helpers.httpRequest({ url: `${base}/api/jobs/${submitted.prompt_id}`, headers, json: true })) as { outputs?: Record<string, { images?: IDataObject[] }> };
			const urls: string[] = [];
			for (const output of Object.values(job.outputs ?? {})) {
				for (const image of output.images ?? []) {
					const view = (await this.helpers.httpRequest({
						url: `${base}/api/view`,
						qs: { filename: image.filename, subfolder: image.subfolder ?? '', type: image.type ?? 'output' },
						headers,
						disableFollowRedirect: true,
						ignoreHttpStatusErrors: true,
						returnFullResponse: true,
					})) as { headers: Record<string, string> };
					urls.push(view.headers.location);
				}
			}
			out.push({ json: { prompt_id: submitted.prompt_id, urls }, pairedItem: { item: i } });
		}
		return [out];
	}
}
