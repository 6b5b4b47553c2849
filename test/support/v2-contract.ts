/**
 * "Every exchange was valid": checks what a v2 simulator received and answered against the
 * contract copy (test/contract/openapi-v2.yaml). A node test ends with
 * `expect(contractBreaches(sim)).toEqual([])`; a simulator test checks the answers alone, since it
 * sends bad requests on purpose.
 */
import { findOperation, validateRequest, validateResponse, validateSchema } from '../contract/validate';
import type { V2View } from '../../simulator/server';

type Exchanges = Pick<V2View, 'exchanges'>;

/** The breaches of the requests the simulator received (the client's side of the contract). */
export function requestBreaches(sim: { v2: Exchanges }): string[] {
	return sim.v2.exchanges.flatMap((x) =>
		validateRequest(x.method, x.path, x.headers, x.body).map((b) => `request ${x.method} ${x.path}: ${b}`),
	);
}

/**
 * The breaches of the simulator's answers: each status one the contract lists for its operation,
 * each body (JSON, or every SSE frame's data) valid. An answer to no operation of the contract
 * (an unknown path) must be the 404 ErrorEnvelope. Connections cut before an answer have none.
 */
export function answerBreaches(sim: { v2: Exchanges }): string[] {
	return sim.v2.exchanges.flatMap((x) => {
		if (x.status === undefined) return [];
		const where = `answer to ${x.method} ${x.path}`;
		if (!findOperation(x.method, x.path)) {
			if (x.status !== 404) return [`${where}: ${x.status} for a path of no operation (want 404)`];
			return validateSchema('ErrorEnvelope', JSON.parse(x.responseText)).map((b) => `${where}: ${b}`);
		}
		const breaches = validateResponse(x.method, x.path, x.status, x.responseHeaders['content-type'], x.responseText, x.responseHeaders);
		return breaches.map((b) => `${where}: ${b}`);
	});
}

/** Both sides: every request the simulator received and every answer it gave. */
export function contractBreaches(sim: { v2: Exchanges }): string[] {
	return [...requestBreaches(sim), ...answerBreaches(sim)];
}
