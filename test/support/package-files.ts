/**
 * What n8n needs beside each node and credential package.json registers, read from the classes
 * of this checkout's built dist/: a node's codex file and the icons (light and dark) each class
 * names. Paths are relative to the package root, as package.json and `npm pack` give them.
 */
import { join, posix } from 'node:path';

const ROOT = join(__dirname, '..', '..');

type IconValue = string | { light: string; dark: string } | undefined;

/** An instance of the class a built file (`dist/…`) registers. */
function registeredClass(registered: string): { icon?: IconValue; description?: { icon?: IconValue } } & Record<string, unknown> {
	const exports = require(join(ROOT, registered)) as Record<string, unknown>;
	const Class = Object.values(exports).find((value) => typeof value === 'function') as new () => Record<string, unknown>;
	return new Class();
}

export function filesNeededBy(registered: string): { codex?: string; icons: string[] } {
	const instance = registeredClass(registered);
	const icon = (instance.description?.icon ?? instance.icon) as IconValue;
	const values = !icon ? [] : typeof icon === 'string' ? [icon] : [icon.light, icon.dark];
	return {
		codex: registered.startsWith('dist/nodes/') ? registered.replace(/\.js$/, '.json') : undefined,
		icons: values.map((value) => posix.normalize(posix.join(posix.dirname(registered), value.replace(/^file:/, '')))),
	};
}
