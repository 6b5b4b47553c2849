// Area A placeholder: replaced by the cloud area implementation.
import type { Server } from 'node:http';

import type { AreaContext } from './server';

export interface CloudArea {
	attach(server: Server): void;
	reset(): void;
	close(): Promise<void>;
}

export function createCloudArea(_ctx: AreaContext): CloudArea {
	return { attach() {}, reset() {}, close: async () => {} };
}
