/**
 * A hostile service (found by an outside review, kept as regression tests): what a hostile service, or a job submitter on a shared account,
 * can make the cloud trigger hold in memory and put in an item.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';

import { msg, sleep, hostileCloudForEachTest } from '../../../support/hostile-cloud-server';
import { waitUntil } from '../../../support/wait';

jest.setTimeout(120_000);

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;
const heapMiB = () => {
	gc();
	gc();
	return process.memoryUsage().heapUsed / 2 ** 20;
};

const suite = hostileCloudForEachTest();
const listening = (parameters?: Record<string, unknown>) => suite.listening(parameters);

test('a job that sends many large executed outputs does not grow the trigger without bound (n8n main process)', async () => {
	const trigger = listening();
	await trigger.activate();
	await waitUntil(() => suite.cloud.sockets.size > 0, 5000);
	const before = heapMiB();
	suite.cloud.broadcast(msg.start('hog'));
	// 120 `executed` messages of 1 MiB each (a text output a ShowText-like node prints), well under
	// the 16 MiB message bound and the 1000 messages kept per job; the job keeps running.
	const big = 'x'.repeat(2 ** 20);
	for (let index = 0; index < 120; index++) {
		suite.cloud.broadcast(msg.executed('hog', '9', { text: [`${index}${big}`] }));
		if (index % 10 === 9) await sleep(50);
	}
	await sleep(1500);
	const grown = heapMiB() - before;
	// A trigger keeps, of a job, only what its item can hold (file references): 64 MiB is generous.
	expect(Math.round(grown)).toBeLessThan(64);
});
