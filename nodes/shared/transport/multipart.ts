/**
 * multipart/form-data bodies built in memory. The package may not depend on a form-data library,
 * and a Buffer body goes through n8n's request helper (and its credential handling) unchanged.
 */
import { randomBytes } from 'crypto';

export interface MultipartFile {
	name: string;
	data: Buffer;
	fileName: string;
	contentType: string;
}

export interface MultipartBody {
	body: Buffer;
	contentType: string;
}

/** Quotes a header parameter value as browsers do (WHATWG form encoding): ", CR and LF percent-encoded. */
function quoted(value: string): string {
	return `"${value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

/** Builds the body and its Content-Type (with the boundary). Text fields come first (a list as one part per value), then files. */
export function multipartBody(fields: Record<string, string | string[]>, files: MultipartFile[] = []): MultipartBody {
	const boundary = `----n8n-nodes-host-${randomBytes(12).toString('hex')}`;
	const chunks: Buffer[] = [];
	for (const [name, values] of Object.entries(fields)) {
		for (const value of Array.isArray(values) ? values : [values])
			chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`, 'utf8'));
	}
	for (const file of files) {
		const head =
			`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(file.name)}; filename=${quoted(file.fileName)}\r\n` +
			`Content-Type: ${file.contentType}\r\n\r\n`;
		chunks.push(Buffer.from(head, 'utf8'), file.data, Buffer.from('\r\n', 'utf8'));
	}
	chunks.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));
	return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
