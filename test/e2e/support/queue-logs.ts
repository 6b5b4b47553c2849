/**
 * Where things ran in queue mode, read from the processes' logs (n8n 2.41.1 keeps no worker id in
 * its execution records; its info-level log lines say it all):
 * - the process that put an execution on the queue logs `Enqueued execution <id> (job <job>)`:
 *   the main process for a manual run, a webhook processor for a production webhook or a resume
 *   call, the main process for a timer (Wait node, Max Wait);
 * - a worker logs `Worker started execution <id> (job <job>)` when it takes the job, and
 *   `Worker finished execution …` when it lets it go: finished, or put to waiting (the job is over,
 *   the slot free); `Worker errored while running execution …` when the run threw (a stop from the
 *   editor ends this way);
 * - the process that put an execution on the queue and waits for it logs `Problem with execution
 *   <id>: … Aborting.` when the queue failed its job (its worker died), and marks it failed.
 */
import { readFileSync } from 'node:fs';

export interface LoggingProcess {
	name: string;
	logFile: string;
}

export interface JobRun {
	/** The worker's name (worker-1 …). */
	worker: string;
	executionId: string;
	jobId: string;
	/** The worker let the job go (finished, or the execution went to waiting). */
	finished: boolean;
	/** The run threw (canceled, or failed outside the workflow). */
	errored: boolean;
}

const STARTED = /^Worker started execution (\d+) \(job (\d+)\)/;
const FINISHED = /^Worker finished execution (\d+) \(job (\d+)\)/;
const ERRORED = /^Worker errored while running execution (\d+) \(job (\d+)\)/;
const ENQUEUED = /^Enqueued execution (\d+) \(job (\d+)\)/;
const ABORTED = /^Problem with execution (\d+): .*Aborting\.$/;

function logLines(process: LoggingProcess): string[] {
	try {
		return readFileSync(process.logFile, 'utf8').split('\n');
	} catch {
		return [];
	}
}

/** Every job the worker took, in order, and how far it got. */
export function jobRuns(worker: LoggingProcess): JobRun[] {
	const runs = new Map<string, JobRun>();
	for (const line of logLines(worker)) {
		const started = STARTED.exec(line);
		if (started)
			runs.set(started[2]!, { worker: worker.name, executionId: started[1]!, jobId: started[2]!, finished: false, errored: false });
		const finished = FINISHED.exec(line);
		const errored = finished ? null : ERRORED.exec(line);
		const run = runs.get((finished ?? errored)?.[2] ?? '');
		if (run && finished) run.finished = true;
		else if (run && errored) run.errored = true;
	}
	return [...runs.values()];
}

/** The jobs the worker holds now (taken, not let go): the slots it uses. */
export function runningJobs(worker: LoggingProcess): JobRun[] {
	return jobRuns(worker).filter((run) => !run.finished && !run.errored);
}

/** Every run of the execution on these workers, in the order each worker logged them. */
export function runsOf(executionId: string, workers: LoggingProcess[]): JobRun[] {
	return workers.flatMap((worker) => jobRuns(worker).filter((run) => run.executionId === executionId));
}

/** Names of the processes that put the execution on the queue, once per time they did. */
export function enqueuedBy(executionId: string, processes: LoggingProcess[]): string[] {
	return processes.flatMap((process) =>
		logLines(process)
			.map((line) => ENQUEUED.exec(line))
			.filter((match) => match?.[1] === executionId)
			.map(() => process.name),
	);
}

/** Names of the processes that gave the execution up as failed when the queue failed its job. */
export function abortedBy(executionId: string, processes: LoggingProcess[]): string[] {
	return processes.flatMap((process) =>
		logLines(process)
			.map((line) => ABORTED.exec(line))
			.filter((match) => match?.[1] === executionId)
			.map(() => process.name),
	);
}
