/**
 * server/: what the Server resource's operations share (System Stats, Free Memory, List Models,
 * Get History, Delete History): they are controls of a self-hosted ComfyUI-compatible server, which
 * the cloud does not offer. The node cannot hide operations by credential, so each refuses a cloud
 * credential by name before anything is sent. It may call transport/, nodes/shared, and of the
 * other helper folders jobs/ (a history entry in the package's job words, with its files) and
 * ownership/ (which ids can name a job); none of them calls it.
 */
import type { IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CloudServer } from '../../../../credentials/cloud-server';
import { clipText } from '../../../shared/service-values';
import { hostCloudServer } from '../../../shared/transport';

/**
 * The credential's server, when it is a self-hosted one; on the cloud, the error that names the
 * operation. Reading the credential sends nothing, so nothing reaches the cloud.
 */
export async function selfHostedServer(
	context: IExecuteFunctions | ILoadOptionsFunctions,
	operation: string,
	itemIndex = 0,
): Promise<CloudServer> {
	const server = await hostCloudServer(context, itemIndex);
	if (server.kind === 'selfHosted') return server;
	throw new NodeOperationError(
		context.getNode(),
		`${operation} needs a self-hosted server: this Host Cloud API credential points at the Host cloud, which has no such control`,
		{
			itemIndex,
			description: `The Server operations control a ComfyUI-compatible server of your own. Pick a Host Cloud API credential whose Server is "Self-Hosted"; nothing was sent to the cloud.`,
		},
	);
}

/** The longest model or folder name passed on: no file is named by a longer text. */
const NAME_MAX_CHARS = 1024;

/**
 * The names of a listing (`GET /models`, `GET /models/{folder}`: a JSON list of texts), each
 * clipped; an answer of another shape is an error that says what came, never an empty list.
 */
export function namesOf(context: IExecuteFunctions | ILoadOptionsFunctions, answer: unknown, what: string, itemIndex = 0): string[] {
	if (!Array.isArray(answer)) {
		const came =
			answer === null || answer === undefined || answer === ''
				? 'nothing'
				: typeof answer === 'object'
					? 'an object'
					: `a ${typeof answer}`;
		throw new NodeOperationError(context.getNode(), `Your server answered ${came} instead of a list of names while ${what}`, {
			itemIndex,
			description: 'A ComfyUI-compatible server answers a JSON list of names here. Check the Server URL of the credential, then try again.',
		});
	}
	return answer.filter((name): name is string => typeof name === 'string').map((name) => clipText(name, NAME_MAX_CHARS));
}
