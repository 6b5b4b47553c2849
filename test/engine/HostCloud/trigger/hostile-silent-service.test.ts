/**
 * A service that never answers the queue read (an outside review found this held): activation and
 * close stay bounded, and close ends the read under way instead of leaving it to its time limit.
 */
import { ListeningTrigger } from '../../../support/listening-trigger';
import { startHostileCloud } from '../../../support/hostile-cloud-server';
import { waitUntil } from '../../../support/wait';

jest.setTimeout(60_000);

test('held: activation returns within the documented 20 s and close() returns at once when /api/queue never answers', async () => {
	const cloud = await startHostileCloud();
	cloud.queue = () => 'hang';
	const trigger = new ListeningTrigger(cloud.harness, cloud.credential, { downloadFiles: false });
	try {
		const started = Date.now();
		await trigger.activate();
		const activationMs = Date.now() - started;
		const closing = Date.now();
		await trigger.close();
		expect({ activationUnder21s: activationMs < 21_000, closeUnder1s: Date.now() - closing < 1_000 }).toEqual({
			activationUnder21s: true,
			closeUnder1s: true,
		});
		expect(trigger.errors).toEqual([]);
		// The unanswered queue read was closed by the trigger, not left open until its 60 s of silence.
		await waitUntil(() => cloud.openRequests() === 0, 2000);
		expect(trigger.errors).toEqual([]);
	} finally {
		await trigger.close();
		await cloud.close();
	}
});
