/**
 * A hostile service (found by an outside review, kept as regression tests): the cloud trigger's WebSocket under a hostile or broken service:
 * a socket closed right after each handshake, a socket that stays open and says nothing; and the
 * trigger's parameters given by expressions.
 */
import { sleep, hostileCloudForEachTest } from '../../../support/hostile-cloud-server';
import { waitUntil } from '../../../support/wait';

jest.setTimeout(90_000);

const suite = hostileCloudForEachTest();
const listening = (parameters?: Record<string, unknown>) => suite.listening(parameters);

test('a service that closes every socket right after its handshake gets back-off (0.1 s doubling to 15 s), not a storm', async () => {
	const trigger = listening();
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 5000);
	const connectsBefore = suite.cloud.wsConnections;
	const queueBefore = suite.cloud.seen.filter((line) => line.startsWith('GET /api/queue')).length;
	// From now on every accepted socket is closed at once (a load balancer dropping upgrades it let through).
	const closer = setInterval(() => suite.cloud.dropSockets(), 5);
	await sleep(10_000);
	clearInterval(closer);
	const connects = suite.cloud.wsConnections - connectsBefore;
	const queueReads = suite.cloud.seen.filter((line) => line.startsWith('GET /api/queue')).length - queueBefore;
	// With the documented back-off: 0.1+0.2+0.4+0.8+1.6+3.2+6.4 s: about 7 connects in 10 s.
	expect({ connects: connects <= 10 ? 'backed off' : connects, queueReads: queueReads <= 10 ? 'backed off' : queueReads }).toEqual({
		connects: 'backed off',
		queueReads: 'backed off',
	});
});

test('a socket that stays open but goes silent is noticed: a job that sat in the queue for 40 s is passed on', async () => {
	const trigger = listening();
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 5000);
	// The connection is half-open from now on: the service no longer sends anything down it.
	// Meanwhile a job of the account is queued and runs for 40 s, then completes.
	const started = Date.now();
	suite.cloud.queue = () =>
		Date.now() - started < 40_000
			? { code: 200, body: { queue_running: [[0, 'long-job', {}, {}, []]], queue_pending: [] } }
			: { code: 200, body: { queue_running: [], queue_pending: [] } };
	suite.cloud.status = (id) => ({
		code: 200,
		body: { status: id === 'long-job' && Date.now() - started >= 40_000 ? 'completed' : 'in_progress' },
	});
	await sleep(45_000);
	expect({
		flows: trigger.items.map((item) => item.json.prompt_id),
		reconnects: suite.cloud.wsConnections - 1,
		queueReads: suite.cloud.seen.filter((line) => line.startsWith('GET /api/queue')).length,
	}).toMatchObject({ flows: ['long-job'] });
});

test('Poll Every given by an expression as text ("15") is taken, or refused in words that make sense', async () => {
	const trigger = listening({ pollSeconds: '={{ "15" }}' });
	const failure = await trigger.activate().then(
		() => undefined,
		(error: Error) => error.message,
	);
	// A refusal must name the field and say what is wrong: "is 15; use a number from 2 to 3600" says neither.
	expect(failure === undefined || !/is 15; use a number from 2 to 3600/.test(failure)).toBe(true);
});
