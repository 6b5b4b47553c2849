/**
 * The one stack the e2e cases share. test/e2e/e2e.test.ts starts it before the first case and
 * stops it after the last; a case reads it with `e2e()` inside its tests (never at load time).
 */
import type { HostStack } from './stack';

let current: HostStack | undefined;

export function setE2eStack(stack: HostStack | undefined): void {
	current = stack;
}

export function e2e(): HostStack {
	if (!current) throw new Error('The e2e stack is not running: its set-up failed (see the first error above).');
	return current;
}
