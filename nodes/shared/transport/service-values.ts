/**
 * What the package passes on of what a service sent: its words clipped, so that no answer floods
 * an item, an error or a tool's reply (the texts a failed task or job reports, a status word, an
 * error body), and its addresses checked and written anew, so that only an absolute http(s) URL
 * reaches an item, where a Form page or an e-mail may place it in HTML.
 */

/** The most of a service's words kept in one text (a failure message, an error body's words). */
export const SERVICE_TEXT_MAX_CHARS = 1000;

/** `text` with at most `max` characters, and a marker saying it was cut and how long it was. */
export function clipText(text: string, max = SERVICE_TEXT_MAX_CHARS): string {
	if (text.length <= max) return text;
	// Never end on half of a surrogate pair.
	const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
	return `${text.slice(0, end)}… [cut: ${text.length} characters in all]`;
}

/**
 * Why `url` is not used, if it is not a web address. A result URL may come from a task
 * notification, which anyone holding its URL can send: a `file:`, `data:` or `gopher:` address
 * there would read something that is no result file. An upload address comes from a service's
 * answer, which may be malformed. `use` says what is done with such addresses.
 */
export function notAWebAddress(url: string, use = 'downloaded'): string | undefined {
	let protocol: string;
	try {
		protocol = new URL(url).protocol;
	} catch {
		return 'it is not a valid web address';
	}
	if (protocol === 'http:' || protocol === 'https:') return undefined;
	return `its address uses the ${protocol} scheme, and only http: and https: addresses are ${use}`;
}

/**
 * `url` as an absolute http(s) URL, serialised anew (markup characters escaped, the host in its
 * canonical form), or undefined when it is none: a relative address, another scheme (`javascript:`,
 * `data:`, `file:`), or text that is no URL at all.
 */
export function webAddress(url: unknown): string | undefined {
	if (typeof url !== 'string' || notAWebAddress(url)) return undefined;
	// The WHATWG serialiser leaves some characters as they came (a quote in the fragment, for one).
	return new URL(url).href.replace(/["'<>`\s]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** `value` with every text in it clipped to `max` characters (the reader bounds its depth already). */
export function clipTextsDeep<T>(value: T, max = SERVICE_TEXT_MAX_CHARS): T {
	if (typeof value === 'string') return clipText(value, max) as T;
	if (Array.isArray(value)) return value.map((entry: unknown) => clipTextsDeep(entry, max)) as T;
	if (value === null || typeof value !== 'object') return value;
	const clipped: Record<string, unknown> = {};
	for (const [key, entry] of Object.entries(value)) {
		Object.defineProperty(clipped, clipText(key, max), {
			value: clipTextsDeep(entry, max),
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return clipped as T;
}
