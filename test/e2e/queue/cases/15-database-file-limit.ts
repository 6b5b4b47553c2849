/**
 * Binary data in the database has a size limit (N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE, 255 MiB
 * in this stack, as the README advises, because n8n cannot read back a file of 256 MiB or more
 * from PostgreSQL). A Host Cloud output over it fails its item with n8n's reason, is downloaded
 * once (another download would be refused again) and nothing is stored.
 */
import { DATABASE_FILE_LIMIT_MIB } from '../../support/queue-stack';
import { CLOUD_NODE, manualCloudWorkflow } from '../../support/queue-workflows';
import { queue } from '../context';

describe('queue mode: a file over the database limit', () => {
	it('fails the item with n8n’s reason, downloaded once, nothing stored', async () => {
		const { client, importWorkflow, simulator, postgres } = queue();
		const workflow = await importWorkflow(manualCloudWorkflow('Queue: file over the limit', { downloadFiles: true }));
		const storageReads = () => simulator.requestsTo('GET').filter((request) => request.host === 'storage').length;
		const readsBefore = storageReads();
		simulator.cloud.setOutputSize((DATABASE_FILE_LIMIT_MIB + 1) * 1024 * 1024);
		try {
			const execution = await client.runWorkflow(workflow.id, { timeoutMs: 120000 });
			expect(execution.status).toBe('error');
			const error = execution.runData[CLOUD_NODE]?.[0]?.error;
			expect(error?.message).toMatch(
				new RegExp(
					`arrived whole but n8n could not store it: .*exceeds the max size limit of ${DATABASE_FILE_LIMIT_MIB} MB set for \`database\` mode`,
				),
			);
			expect(error?.description).toMatch(/S3|pass the file URLs on/);
			expect(storageReads() - readsBefore).toBe(1);
			expect(await postgres.query(`SELECT count(*) FROM binary_data WHERE "sourceId" = '${execution.id}'`)).toBe('0');
		} finally {
			simulator.cloud.setOutputSize(undefined);
		}
	});
});
