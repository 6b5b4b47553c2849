/**
 * A hostile service (found by an outside review, kept as regression tests): the cloud trigger's liveness and its reaction to per-job answers.
 * Each test states the promise it holds the trigger to; a failing test is a finding.
 */
import { msg, sleep, hostileCloudForEachTest } from '../../../support/hostile-cloud-server';
import { waitUntil } from '../../../support/wait';

jest.setTimeout(60_000);

const suite = hostileCloudForEachTest();
const listening = (parameters?: Record<string, unknown>) => suite.listening(parameters);

test('sanity: a job heard start to end on the hostile cloud starts one flow', async () => {
	const trigger = listening();
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 30_000);
	suite.cloud.broadcast(msg.start('job-sane'));
	suite.cloud.broadcast(msg.executed('job-sane', '9', { images: [{ filename: 'a.png', subfolder: '', type: 'output' }] }));
	suite.cloud.broadcast(msg.success('job-sane'));
	const [item] = await trigger.flows(1);
	expect(item!.json).toMatchObject({ prompt_id: 'job-sane', status: 'succeeded' });
});

test('a busy account (a new job heard faster than a queue read answers) still passes on a job that ended, reading the queue at most once a second', async () => {
	// The queue answers in 400 ms, as a large account's queue may; new jobs start every 100 ms.
	const queueReadsAt: number[] = [];
	suite.cloud.routes.push((_req, res, url) => {
		if (url.pathname !== '/api/queue') return false;
		queueReadsAt.push(Date.now());
		setTimeout(() => {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(JSON.stringify({ queue_running: [], queue_pending: [] }));
		}, 400);
		return true;
	});
	const trigger = listening();
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 30_000);
	const readsBefore = queueReadsAt.length;
	let n = 0;
	const busy = setInterval(() => suite.cloud.broadcast(msg.start(`other-${n++}`)), 100);
	try {
		suite.cloud.broadcast(msg.start('job-ends'));
		suite.cloud.broadcast(msg.executed('job-ends', '9', { images: [{ filename: 'a.png', subfolder: '', type: 'output' }] }));
		suite.cloud.broadcast(msg.success('job-ends'));
		// Documented: "within a moment of its end". Ten seconds is generous.
		await waitUntil(() => trigger.items.length > 0, 10_000).catch(() => undefined);
		// The account stays busy a while longer: 50 new jobs heard in all.
		await waitUntil(() => n >= 50, 10_000);
		clearInterval(busy);
		const flowsWhileBusy = trigger.items.length;
		await waitUntil(() => trigger.items.length > 0, 5_000).catch(() => undefined);
		// Each new job asks whose it is; the reads come at most one a second: k reads, as the service saw
		// them begin, span at least k - 1 seconds (a read every 400 ms would be twice as many).
		const reads = queueReadsAt.slice(readsBefore);
		const spanSeconds = (reads[reads.length - 1]! - reads[0]!) / 1000;
		expect({ flowsWhileBusy, flowsOnceQuiet: trigger.items.length, overOnePerSecond: reads.length > Math.ceil(spanSeconds) + 1 }).toEqual({
			flowsWhileBusy: 1,
			flowsOnceQuiet: 1,
			overOnePerSecond: false,
		});
		// The jobs heard did make the trigger read (the rule is not met by reading nothing).
		expect(reads.length).toBeGreaterThanOrEqual(2);
	} finally {
		clearInterval(busy);
	}
});

test.each([400, 403, 410])('one job whose status read answers %i does not deactivate the whole trigger', async (code) => {
	// On a shared account the socket carries every member's jobs; the status route may refuse one of them
	// (403), call its id malformed (400) or gone (410). That is about the job, not the key.
	suite.cloud.status = (id) =>
		id === 'odd-job' ? { code, body: { error: `job ${id}: not for you` } } : { code: 200, body: { status: 'in_progress' } };
	const trigger = listening();
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 30_000);
	suite.cloud.broadcast(msg.start('odd-job'));
	// The job is quiet for 5 s, then the socket drops: the trigger looks the watched job up.
	await sleep(5_500);
	suite.cloud.dropSockets();
	await waitUntil(() => suite.cloud.seen.some((line) => line.includes('/api/job/odd-job/status')), 10_000);
	await sleep(1_000);
	expect(trigger.errors.map((error) => error.message)).toEqual([]);
	// And it keeps listening: a later job still starts a flow.
	await waitUntil(() => suite.cloud.sockets.size > 0, 5000).catch(() => undefined);
	suite.cloud.broadcast(msg.start('later'));
	suite.cloud.broadcast(msg.success('later'));
	await waitUntil(() => trigger.items.length > 0, 5000).catch(() => undefined);
	expect(trigger.items.map((item) => item.json.prompt_id)).toEqual(['later']);
});

test('no flow starts after the trigger was closed (n8n deactivated or updated the workflow)', async () => {
	let storageAsked = 0;
	suite.cloud.routes.push((_req, res, url) => {
		if (!url.pathname.startsWith('/o/')) return false;
		storageAsked++;
		// The storage is slow: the download is under way when the workflow is deactivated.
		setTimeout(() => {
			res.writeHead(200, { 'Content-Type': 'image/png' });
			res.end(Buffer.from('89504e470d0a1a0a', 'hex'));
		}, 2_000);
		return true;
	});
	const trigger = listening({ downloadFiles: true });
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 30_000);
	suite.cloud.broadcast(msg.start('job-late'));
	suite.cloud.broadcast(msg.executed('job-late', '9', { images: [{ filename: 'a.png', subfolder: '', type: 'output' }] }));
	suite.cloud.broadcast(msg.success('job-late'));
	await waitUntil(() => storageAsked > 0, 30_000);
	await trigger.close();
	await sleep(3_000);
	expect(trigger.items.map((item) => item.json.prompt_id)).toEqual([]);
});
