/**
 * A manual run of Host Cloud *Execute* with *Download Files*: the main process puts it on the
 * queue, one worker runs it, and the file lands in n8n's database as binary data, from where the
 * main process serves it (the editor's download) although another process wrote it.
 */
import { describeFailure, outputItems } from '../../support/n8n-client';
import { enqueuedBy, runsOf } from '../../support/queue-logs';
import { CLOUD_NODE, manualCloudWorkflow } from '../../support/queue-workflows';
import { queue } from '../context';

describe('queue mode: Host Cloud on a worker', () => {
	it('Execute with Download Files runs on a worker; its file is binary data in the database, readable through the main process', async () => {
		const { client, importWorkflow, main, workers, webhookProcessors, postgres } = queue();
		const workflow = await importWorkflow(manualCloudWorkflow('Queue: cloud download', { downloadFiles: true }));

		const execution = await client.runWorkflow(workflow.id, { timeoutMs: 60000 });

		expect(describeFailure(execution)).toBe('succeeded');
		// Where it ran: the main process enqueued the manual run; exactly one worker took it and finished it.
		expect(enqueuedBy(execution.id, [main, ...webhookProcessors])).toEqual(['main']);
		const runs = runsOf(execution.id, workers);
		expect(runs).toEqual([expect.objectContaining({ finished: true, errored: false })]);
		expect(workers.map((worker) => worker.name)).toContain(runs[0]!.worker);

		const [item] = outputItems(execution, CLOUD_NODE);
		const binary = item!.binary!.image_0!;
		const file = (item!.json.files as Array<{ filename: string; url: string }>)[0]!;
		expect(binary).toMatchObject({ fileName: file.filename, mimeType: 'image/png' });
		// Binary data mode "database": the id names the mode, the row belongs to this execution.
		expect(binary.id).toMatch(/^database:/);
		// Through the main process (GET /rest/binary-data), as the editor's download button gets it.
		const bytes = await client.binaryContent(binary);
		const original = Buffer.from(await (await fetch(file.url)).arrayBuffer());
		expect(bytes.equals(original)).toBe(true);
		const fileId = binary.id!.slice('database:'.length);
		expect(await postgres.query(`SELECT "sourceType", "sourceId", "fileSize" FROM binary_data WHERE "fileId" = '${fileId}'`)).toBe(
			`execution|${execution.id}|${bytes.length}`,
		);
	});
});
