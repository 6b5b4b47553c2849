/**
 * "The outside world" for example workflows that download something from the internet (a release
 * archive, an input image): a loopback server that answers any path with a small, valid file of
 * the kind its extension names, so the examples run offline. It logs what was fetched.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';

export interface OutsideWorld {
	/** http://127.0.0.1:<port> */
	baseUrl: string;
	/** The address of a file: `url('release.zip')` → http://127.0.0.1:<port>/files/release.zip */
	url(name: string): string;
	/** Paths requested so far. */
	fetched: string[];
	close(): Promise<void>;
}

/** A 1×1 transparent PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** A zip archive holding one uncompressed file (what a release archive looks like to a reader). */
export function zipWithOneFile(name: string, content: string): Buffer {
	const data = Buffer.from(content);
	const fileName = Buffer.from(name);
	const checksum = crc32(data);
	const local = Buffer.alloc(30);
	local.writeUInt32LE(0x04034b50, 0);
	local.writeUInt16LE(10, 4); // version needed
	local.writeUInt32LE(checksum, 14);
	local.writeUInt32LE(data.length, 18);
	local.writeUInt32LE(data.length, 22);
	local.writeUInt16LE(fileName.length, 26);
	const central = Buffer.alloc(46);
	central.writeUInt32LE(0x02014b50, 0);
	central.writeUInt16LE(20, 4); // version made by
	central.writeUInt16LE(10, 6); // version needed
	central.writeUInt32LE(checksum, 16);
	central.writeUInt32LE(data.length, 20);
	central.writeUInt32LE(data.length, 24);
	central.writeUInt16LE(fileName.length, 28);
	const centralOffset = local.length + fileName.length + data.length;
	const end = Buffer.alloc(22);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(1, 8);
	end.writeUInt16LE(1, 10);
	end.writeUInt32LE(central.length + fileName.length, 12);
	end.writeUInt32LE(centralOffset, 16);
	return Buffer.concat([local, fileName, data, central, fileName, end]);
}

function fileFor(path: string): { type: string; body: Buffer } {
	const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
	switch (extension) {
		case 'zip':
			return { type: 'application/zip', body: zipWithOneFile('package.json', '{"name":"example-node","version":"1.0.0"}\n') };
		case 'png':
		case 'jpg':
		case 'jpeg':
		case 'webp':
			return { type: 'image/png', body: PNG };
		case 'json':
			return { type: 'application/json', body: Buffer.from('{"ok":true}\n') };
		default:
			return { type: 'text/plain; charset=utf-8', body: Buffer.from(`fixture for ${path}\n`) };
	}
}

export async function startOutsideWorld(): Promise<OutsideWorld> {
	const fetched: string[] = [];
	const server: Server = createServer((req, res) => {
		const path = new URL(req.url ?? '/', 'http://outside').pathname;
		fetched.push(path);
		const { type, body } = fileFor(path);
		const name = path.split('/').pop() || 'file';
		res.writeHead(200, { 'content-type': type, 'content-length': body.length, 'content-disposition': `attachment; filename="${name}"` });
		res.end(req.method === 'HEAD' ? undefined : body);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		baseUrl,
		url: (name) => `${baseUrl}/files/${name.replace(/^\/+/, '')}`,
		fetched,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}
