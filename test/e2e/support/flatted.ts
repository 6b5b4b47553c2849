/**
 * Reads the "flatted" encoding n8n's REST API uses for execution data (it allows cycles): a JSON
 * array whose first entry is the root; inside objects and arrays every string is the decimal index
 * of the entry holding the real value, while numbers, booleans and null stand for themselves.
 */
export function decodeFlatted(text: string): unknown {
	const table = JSON.parse(text) as unknown[];
	if (!Array.isArray(table) || table.length === 0) return undefined;
	const decoded = new Map<number, unknown>();

	const entry = (index: number): unknown => {
		if (decoded.has(index)) return decoded.get(index);
		const raw = table[index];
		if (raw === null || typeof raw !== 'object') {
			decoded.set(index, raw);
			return raw;
		}
		// Register the container before filling it, so references back to it (cycles) resolve.
		const container: Record<string, unknown> | unknown[] = Array.isArray(raw) ? [] : {};
		decoded.set(index, container);
		for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
			(container as Record<string, unknown>)[key] = typeof value === 'string' ? entry(Number(value)) : value;
		}
		return container;
	};

	return entry(0);
}
