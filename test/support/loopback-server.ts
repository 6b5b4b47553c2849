/** A tiny loopback HTTP server for tests that need to see exactly what a node or credential sent. */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
	body: string;
}

export interface LoopbackServer {
	url: string;
	seen: SeenRequest[];
	server: Server;
	/** TCP connections open right now (a client that never closed a stalled stream keeps one). */
	openConnections(): Promise<number>;
	close(): Promise<void>;
}

export async function startLoopbackServer(handle: (req: SeenRequest, res: ServerResponse) => void): Promise<LoopbackServer> {
	const seen: SeenRequest[] = [];
	const server = createServer((req: IncomingMessage, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const entry = {
				method: req.method ?? 'GET',
				url: req.url ?? '/',
				headers: req.headers,
				body: Buffer.concat(chunks).toString('utf8'),
			};
			seen.push(entry);
			handle(entry, res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		seen,
		server,
		openConnections: () =>
			new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count)))),
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}
