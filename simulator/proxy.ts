// Area C placeholder: replaced by the proxy area implementation.
import type { AreaContext } from './server';

export interface ProxyArea {
	reset(): void;
	close(): Promise<void>;
}

export function createProxyArea(_ctx: AreaContext): ProxyArea {
	return { reset() {}, close: async () => {} };
}
