import type { IAuthenticateRuleResponseCode } from 'n8n-workflow';

const REDIRECT_CODES = [301, 302, 303, 307, 308];

/**
 * The credential test sends the secret, so it must never follow a redirect (n8n would send the
 * secret on to wherever it points); these rules say what happened instead. n8n's declarative test
 * can only answer a fixed message, so it cannot name the host; the nodes name it when they run.
 */
export function redirectRules(urlField: string, secretName: string): IAuthenticateRuleResponseCode[] {
	return REDIRECT_CODES.map((value) => ({
		type: 'responseCode',
		properties: {
			value,
			message: `The ${urlField} answered the test with a redirect (HTTP ${value}), which is not followed, so your ${secretName} was not sent on. Enter the address it redirects to as the ${urlField} (often https:// instead of http://, or without a trailing path).`,
		},
	}));
}
