// Area B placeholder: replaced by the registry area implementation.
import type { AreaContext } from './server';

export interface RegistryArea {
	reset(): void;
}

export function createRegistryArea(_ctx: AreaContext): RegistryArea {
	return { reset() {} };
}
