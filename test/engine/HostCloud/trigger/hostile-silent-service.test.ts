/**
 * A service that never answers the queue read (an outside review found this held): activation and
 * close stay bounded, and close ends the read under way instead of leaving it to its time limit.
 */
import { ListeningTrigger } from '../../../support/listening-trigger';
import { startHostileCloud } from '../../../support/hostile-cloud-server';
import { waitUntil } from '../../../support/wait';

// A hang guard between the bounds: activation gives up its read after the documented 20 s, and a
// read left to its own limit would be silent for 60 s: a test that ends at all kept to the first.
jest.setTimeout(50_000);

test('held: activation returns within the documented 20 s and close() returns at once when /api/queue never answers', async () => {
	const cloud = await startHostileCloud();
	cloud.queue = () => 'hang';
	const trigger = new ListeningTrigger(cloud.harness, cloud.credential, { downloadFiles: false });
	try {
		await trigger.activate();
		await trigger.close();
		expect(trigger.errors).toEqual([]);
		// The unanswered queue read was closed by the trigger, not left open until its 60 s of silence
		// (waited for up to 10 s, a hang guard: the close ends it at once).
		await waitUntil(() => cloud.openRequests() === 0, 10_000);
		expect(trigger.errors).toEqual([]);
	} finally {
		await trigger.close();
		await cloud.close();
	}
});
