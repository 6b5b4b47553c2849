// Jest starts the test files it knows to be long first (their times from its cache of the last run),
// so that no worker is left with a long file at the end. A fresh clone (CI) has no such cache, and
// Jest would order by file size: a short file that runs a long sweep (each part of the fault replay
// is eight lines) would start among the last and stretch the run's end. A file Jest has no time for
// takes the seconds test/file-seconds.json gives, from a quiet run (`npm run test:file-seconds` writes
// it anew); a file in neither runs first, as Jest runs a file it has not timed.
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const recorded = require('./file-seconds.json');

class RecordedTimes extends Sequencer {
	time(test) {
		const seconds = recorded[relative(test.context.config.rootDir, test.path)];
		return super.time(test) ?? (seconds === undefined ? undefined : seconds * 1000);
	}
}

module.exports = RecordedTimes;
