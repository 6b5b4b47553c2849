/**
 * The one queue-mode stack the cases share. queue.test.ts starts it before the first case and stops
 * it after the last; a case reads it with `queue()` inside its tests (never at load time).
 */
import type { QueueStack } from '../support/queue-stack';

let current: QueueStack | undefined;

export function setQueueStack(stack: QueueStack | undefined): void {
	current = stack;
}

export function queue(): QueueStack {
	if (!current) throw new Error('The queue-mode stack is not running: its set-up failed (see the first error above).');
	return current;
}
