/**
 * What the "slow down" tests read from the simulator's request log: the time between an answer
 * that told the node to slow down and the next request of the same kind. The log's `at` is when a
 * request arrived, so this gap is a lower bound of the node's wait, which a busy machine can only lengthen.
 */
import type { LoggedRequest } from '../../simulator/shared/core';

/** The statuses of the requests, in order. */
export const statusesOf = (requests: LoggedRequest[]): Array<number | undefined> => requests.map((request) => request.status);

/** Milliseconds from the first answer that asked to slow down (429 or 503) to the request after it. */
export function gapAfterSlowDown(requests: LoggedRequest[]): number {
	const told = requests.findIndex((request) => request.status === 429 || request.status === 503);
	if (told < 0 || told + 1 >= requests.length)
		throw new Error(`no request after a slow-down answer: ${JSON.stringify(statusesOf(requests))}`);
	return requests[told + 1]!.at - requests[told]!.at;
}
