/**
 * How two contract records are compared: the same statuses and content types, bodies and messages
 * of the same shape (keys, value types, array element shapes), the same words where a client
 * reads words (error types and messages, input names, the values named, node ids, status words),
 * and the same order of messages. Values that belong to one server only (its model list, its
 * paths, its exception texts, colours drawn per run) are compared by shape alone.
 */
import type { RecordedMessage, ScenarioRecord } from './scenarios';

/** Keys whose values a client reads as words or ids: they must be equal, not only of the same type. */
const WORDS = new Set([
	'type',
	'message',
	'details',
	'input_name',
	'received_value',
	'received_type',
	'class_type',
	'dependent_outputs',
	'status_str',
	'completed',
	'node',
	'display_node',
	'node_type',
	'subfolder',
	'name',
	'queue_remaining',
	'filename_prefix',
	'filename',
]);

/** A combo's allowed values differ per server (its models): `... not in [...]` is compared without the list. */
const withoutList = (text: string) => text.replace(/ not in \[.*\]$/s, ' not in [...]');

type Shape = string | { array: Shape[] } | { object: Record<string, Shape> };

function shapeOf(value: unknown): Shape {
	if (value === null) return 'null';
	if (Array.isArray(value)) {
		const shapes = value.map(shapeOf);
		const distinct = [...new Map(shapes.map((s) => [JSON.stringify(s), s])).values()];
		return { array: distinct.length === 1 ? distinct : shapes };
	}
	if (typeof value === 'object') {
		return { object: Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, shapeOf(v)])) };
	}
	if (value === '<number>') return 'number';
	if (value === '<id>') return 'id';
	return typeof value;
}

/** The differences of `actual` from `expected` at `path`, one line each. */
export function differences(expected: unknown, actual: unknown, path = '', key = ''): string[] {
	if (WORDS.has(key) && typeof expected !== 'object') {
		const a = typeof expected === 'string' ? withoutList(expected) : expected;
		const b = typeof actual === 'string' ? withoutList(actual) : actual;
		return a === b ? [] : [`${path}: the real server says ${JSON.stringify(a)}, the simulator ${JSON.stringify(b)}`];
	}
	if (Array.isArray(expected) && Array.isArray(actual) && WORDS.has(key)) {
		return JSON.stringify(expected) === JSON.stringify(actual)
			? []
			: [`${path}: the real server says ${JSON.stringify(expected)}, the simulator ${JSON.stringify(actual)}`];
	}
	if (
		expected &&
		actual &&
		typeof expected === 'object' &&
		typeof actual === 'object' &&
		!Array.isArray(expected) &&
		!Array.isArray(actual)
	) {
		const lines: string[] = [];
		for (const k of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
			const here = `${path}.${k}`;
			if (!(k in actual)) lines.push(`${here}: missing (the real server sends it)`);
			else if (!(k in expected)) lines.push(`${here}: extra (the real server does not send it)`);
			else lines.push(...differences((expected as any)[k], (actual as any)[k], here, k));
		}
		return lines;
	}
	const a = JSON.stringify(shapeOf(expected));
	const b = JSON.stringify(shapeOf(actual));
	if (a === b) return [];
	if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length) {
		return expected.flatMap((item, index) => differences(item, actual[index], `${path}[${index}]`));
	}
	if (Array.isArray(expected) && Array.isArray(actual) && expected.length > 0 && actual.length > 0) {
		// Lists of one kind of element whose lengths differ (the server's own lists): compare their first elements.
		const one = differences(expected[0], actual[0], `${path}[0]`);
		if (one.length) return one;
	}
	const short = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
	return [`${path}: the real server sends ${short(a)}, the simulator ${short(b)}`];
}

/** The order of a job's messages, as a client follows it: repeated progress_state and, optionally, runs of executing collapsed. */
export function messageOrder(messages: RecordedMessage[], collapseExecuting = false): string[] {
	const order: string[] = [];
	for (const message of messages) {
		let entry: string;
		if ('binary' in message) entry = `binary ${message.binary}${message.imageType ? `/${message.imageType} ${message.image}` : ''}`;
		else {
			const node = (message.data as { node?: unknown }).node;
			entry = node === undefined ? message.type : `${message.type}(${node === null ? 'null' : collapseExecuting ? '…' : node})`;
		}
		if (order[order.length - 1] === entry && (entry === 'progress_state' || collapseExecuting)) continue;
		order.push(entry);
	}
	return order;
}

/** Every difference of a scenario's simulator record from the real server's. */
export function scenarioDifferences(real: ScenarioRecord, simulated: ScenarioRecord, collapseExecuting = false): string[] {
	const lines: string[] = [];
	if (real.answers.length !== simulated.answers.length)
		lines.push(`answers: ${real.answers.length} real, ${simulated.answers.length} simulated`);
	real.answers.forEach((answer, index) => {
		const other = simulated.answers[index];
		if (!other) return;
		const at = `${answer.request}`;
		if (answer.request !== other.request) lines.push(`answer ${index}: request ${answer.request} vs ${other.request}`);
		if (answer.status !== other.status) lines.push(`${at}: status ${answer.status} real, ${other.status} simulated`);
		if (answer.contentType !== other.contentType)
			lines.push(`${at}: content type ${answer.contentType} real, ${other.contentType} simulated`);
		lines.push(...differences(answer.body, other.body, `${at} body`));
	});
	if (real.messages) {
		const a = messageOrder(real.messages, collapseExecuting);
		const b = messageOrder(simulated.messages ?? [], collapseExecuting);
		if (a.join(' ') !== b.join(' ')) lines.push(`message order:\n  real:      ${a.join(' ')}\n  simulator: ${b.join(' ')}`);
		// Each message type's data has the shape of the real server's first message of that type.
		const firstOf = (messages: RecordedMessage[]) =>
			new Map(
				messages
					.filter((m): m is { type: string; data: unknown } => 'type' in m)
					.reverse()
					.map((m) => [m.type, m.data]),
			);
		const simFirst = firstOf(simulated.messages ?? []);
		for (const [type, data] of firstOf(real.messages)) {
			if (simFirst.has(type)) lines.push(...differences(data, simFirst.get(type), `message ${type}`));
		}
	}
	return lines;
}
