/**
 * A hostile service (found by an outside review, kept as regression tests): the cloud trigger's WebSocket under a hostile or broken service:
 * a socket closed right after each handshake, a socket that stays open and says nothing; and the
 * trigger's parameters given by expressions.
 */
import { msg, sleep, hostileCloudForEachTest } from '../../../support/hostile-cloud-server';
import { waitUntil } from '../../../support/wait';

jest.setTimeout(90_000);

const suite = hostileCloudForEachTest();
const listening = (parameters?: Record<string, unknown>) => suite.listening(parameters);

test('a service that closes every socket right after its handshake gets back-off (0.1 s doubling to 15 s), not a storm', async () => {
	const trigger = listening();
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 30_000);
	const connectsBefore = suite.cloud.wsConnections;
	const queueBefore = suite.cloud.seen.filter((line) => line.startsWith('GET /api/queue')).length;
	// From now on every accepted socket is closed at once (a load balancer dropping upgrades it let through).
	const closer = setInterval(() => suite.cloud.dropSockets(), 5);
	await sleep(10_000);
	clearInterval(closer);
	const connects = suite.cloud.wsConnections - connectsBefore;
	const queueReads = suite.cloud.seen.filter((line) => line.startsWith('GET /api/queue')).length - queueBefore;
	// With the documented back-off (0.1+0.2+0.4+0.8+1.6+3.2+6.4 s: about 7 connects in 10 s), or fewer once the trigger has said it cannot listen.
	expect({ connects: connects <= 10 ? 'backed off' : connects, queueReads: queueReads <= 10 ? 'backed off' : queueReads }).toEqual({
		connects: 'backed off',
		queueReads: 'backed off',
	});
});

test('a WebSocket closed as soon as it opens, try after try: the trigger says so once, in words, and its job is passed on when n8n publishes again', async () => {
	// The queue answers; every socket is closed right after its handshake (a proxy that does not let WebSockets through).
	suite.cloud.queue = () => ({ code: 200, body: { queue_running: [[0, 'deaf-job', {}, {}, []]], queue_pending: [] } });
	const closer = setInterval(() => suite.cloud.dropSockets(), 5);
	try {
		const trigger = listening();
		await trigger.activate();
		await waitUntil(() => trigger.errors.length > 0, 15_000).catch(() => undefined);
		const reported = trigger.errors.map((error) => `${error.message} ${(error as { description?: string }).description ?? ''}`);
		// Reporting closed the trigger (n8n deactivates it): no more tries.
		const connects = suite.cloud.wsConnections;
		await sleep(1_000);
		expect({
			reports: reported.length,
			namesTheSocket: reported.every((text) => /WebSocket/.test(text) && /proxy|firewall/i.test(text)),
			noKey: reported.every((text) => !text.includes(suite.cloud.apiKey)),
			triesAfter: suite.cloud.wsConnections - connects,
			flows: trigger.items.length,
		}).toEqual({ reports: 1, namesTheSocket: true, noKey: true, triesAfter: 0, flows: 0 });
		// The job ends meanwhile; n8n publishes the workflow again: the job it had seen queued is found by its status.
		suite.cloud.queue = () => ({ code: 200, body: { queue_running: [], queue_pending: [] } });
		suite.cloud.status = () => ({ code: 200, body: { status: 'completed' } });
		await trigger.restart();
		await waitUntil(() => trigger.items.length > 0, 10_000).catch(() => undefined);
		expect(trigger.items.map((item) => item.json.prompt_id)).toEqual(['deaf-job']);
	} finally {
		clearInterval(closer);
	}
});

test('a socket that stays open but goes silent is opened anew once a job has run 20 s unheard of, and the new one is heard', async () => {
	// The queue lists a running job from the start, yet the open socket never tells of it (a connection
	// half-closed somewhere): the service no longer sends anything down it.
	suite.cloud.queue = () => ({ code: 200, body: { queue_running: [[0, 'long-job', {}, {}, []]], queue_pending: [] } });
	const trigger = listening();
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 30_000);
	const connectionsBefore = suite.cloud.wsConnections;
	// Documented: 20 s with a running job unheard of; the looks come every 5 s meanwhile.
	await waitUntil(() => suite.cloud.wsConnections > connectionsBefore, 40_000).catch(() => undefined);
	const reopened = suite.cloud.wsConnections - connectionsBefore;
	await waitUntil(() => suite.cloud.sockets.size > 0, 5000).catch(() => undefined);
	// The new socket is listened to: the job's end told on it starts its flow.
	suite.cloud.queue = () => ({ code: 200, body: { queue_running: [], queue_pending: [] } });
	suite.cloud.status = (id) => ({ code: 200, body: { status: id === 'long-job' ? 'completed' : 'in_progress' } });
	suite.cloud.broadcast(msg.start('long-job'));
	suite.cloud.broadcast(msg.executed('long-job', '9', { images: [{ filename: 'a.png', subfolder: '', type: 'output' }] }));
	suite.cloud.broadcast(msg.success('long-job'));
	await waitUntil(() => trigger.items.length > 0, 5_000).catch(() => undefined);
	expect({ reopened, flows: trigger.items.map((item) => item.json.prompt_id) }).toEqual({ reopened: 1, flows: ['long-job'] });
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
