/**
 * A hostile service (found by an outside review, kept as a regression test): "no job starts a flow twice". A job whose end is heard on the
 * socket while its status read (after a gap) is still in flight.
 */
import { ListeningTrigger } from '../../../support/listening-trigger';
import { msg, sleep, startHostileCloud, type HostileCloud } from '../../../support/hostile-cloud-server';
import { waitUntil } from '../../../support/wait';

jest.setTimeout(120_000);

let cloud: HostileCloud;
let trigger: ListeningTrigger;
beforeEach(async () => {
	cloud = await startHostileCloud();
});
afterEach(async () => {
	await trigger?.close();
	await cloud.close();
});

test('a job heard ending while its status read is in flight is passed on once, also after later jobs and a restart', async () => {
	let raceEnded = false;
	cloud.routes.push((_req, res, url) => {
		if (url.pathname !== '/api/job/race/status') return false;
		// The status read after the gap is slow; meanwhile the socket is back and says the job ended.
		setTimeout(() => {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(JSON.stringify({ status: raceEnded ? 'completed' : 'in_progress' }));
		}, 1_500);
		raceEnded = true;
		return true;
	});
	trigger = new ListeningTrigger(cloud.harness, cloud.credential, { downloadFiles: false });
	await trigger.activate();
	await waitUntil(() => cloud.sockets.size > 0, 30_000);
	cloud.broadcast(msg.start('race'));
	await sleep(5_500);
	cloud.dropSockets();
	await waitUntil(() => cloud.seen.some((line) => line.includes('/api/job/race/status')), 10_000);
	await waitUntil(() => cloud.sockets.size > 0, 30_000);
	cloud.broadcast(msg.success('race'));
	await trigger.flows(1);
	await sleep(2_000);
	// Later jobs of the account (256-character ids, as the service may use): 520 of them fill the
	// 128 KiB the trigger remembers.
	for (let index = 0; index < 520; index++) {
		const id = `${String(index).padStart(6, '0')}${'j'.repeat(250)}`;
		cloud.broadcast(msg.start(id));
		cloud.broadcast(msg.success(id));
		if (index % 20 === 19) await sleep(20);
	}
	await trigger.flows(521, 60_000);
	const saved = trigger.memory;
	const remembered = { raceDone: saved.done?.includes('race'), raceWatched: saved.watching?.includes('race') };
	// n8n restarts.
	await trigger.restart();
	await sleep(3_000);
	const race = trigger.items.filter((item) => item.json.prompt_id === 'race').length;
	expect({ ...remembered, raceFlows: race, refusedByKey: trigger.refusedByKey }).toEqual({
		...remembered,
		raceFlows: 1,
		refusedByKey: 0,
	});
});
