/**
 * A request that got no answer, in words (nodes/shared/transport/network-failure.ts): never a raw code,
 * since n8n replaces any message holding one with a generic sentence that drops what failed.
 */
import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

import { isNetworkFailure, networkFailure, networkFailureReason } from '../../../../nodes/shared/transport/network-failure';

const NODE: INode = { id: '1', name: 'Node', type: 'test', typeVersion: 1, position: [0, 0], parameters: {} };
const failure = (code: string | undefined, message: string) => Object.assign(new Error(message), code ? { code } : {});

describe('networkFailure', () => {
	it.each([
		['ECONNABORTED', 'timeout of 1000ms exceeded', 'the service sent nothing for 1 second', true, true],
		['ETIMEDOUT', 'connect ETIMEDOUT', 'the service sent nothing for 1 second', true, true],
		['ECONNRESET', 'socket hang up', 'the service closed the connection early', false, true],
		[undefined, 'aborted', 'the service closed the connection early', false, true],
		['EPIPE', 'write EPIPE', 'the service closed the connection early', false, true],
		['ENOTFOUND', 'getaddrinfo ENOTFOUND x', 'the service’s name could not be resolved', false, false],
		['ECONNREFUSED', 'connect ECONNREFUSED', 'the service refused the connection', false, false],
		['EHOSTUNREACH', 'no route', 'the service could not be reached', false, false],
	])('%s (%s): "%s"', (code, message, reason, timedOut, mayHaveArrived) => {
		expect(networkFailure(failure(code, message), 'the service', 1000)).toEqual({ reason, timedOut, mayHaveArrived });
		expect(isNetworkFailure(failure(code, message))).toBe(true);
	});

	it('a request whose connection was never made did not arrive, whatever its code (the system call says so)', () => {
		const connecting = Object.assign(failure('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:443'), { syscall: 'connect' });
		expect(networkFailure(connecting, 'the service', 1000)).toEqual({
			reason: 'the service sent nothing for 1 second',
			timedOut: true,
			mayHaveArrived: false,
		});
		const wrapped = new NodeApiError(NODE, Object.assign(failure('ECONNRESET', 'read ECONNRESET'), { syscall: 'read' }) as never);
		expect(networkFailure(wrapped, 'the service').mayHaveArrived).toBe(true);
	});

	it('reads the code where n8n’s helper keeps it, on the cause of its own error with the generic sentence', () => {
		const wrapped = new NodeApiError(NODE, failure('ECONNABORTED', 'timeout of 30000ms exceeded') as never);
		expect(wrapped.message).toBe('The connection was aborted, perhaps the server is offline');
		expect(networkFailureReason(wrapped, 'the service', 30_000)).toBe('the service sent nothing for 30 seconds');
		expect(networkFailureReason(new NodeApiError(NODE, failure('ECONNRESET', 'socket hang up') as never), 'the storage host')).toBe(
			'the storage host closed the connection early',
		);
	});

	it('says "did not answer in time" when the timeout is not known', () => {
		expect(networkFailureReason(failure('ETIMEDOUT', 'x'), 'the storage host')).toBe('the storage host did not answer in time');
	});

	it('makes messages n8n keeps as they are (no code in them), and knows other failures from network ones', () => {
		const words = networkFailureReason(failure('ECONNRESET', 'read ECONNRESET'), 'the storage host');
		expect(new NodeOperationError(NODE, `Version 1.0.0 was created, but its archive was not uploaded: ${words}`).message).toBe(
			'Version 1.0.0 was created, but its archive was not uploaded: the storage host closed the connection early',
		);
		expect(isNetworkFailure(new Error('The audio of take 1 could not be stored'))).toBe(false);
	});
});
