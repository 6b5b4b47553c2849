import type { IAuthenticateRuleResponseCode, IAuthenticateRuleResponseSuccessBody, ICredentialTestRequest } from 'n8n-workflow';

/**
 * n8n's declarative credential test passes on any 2xx answer unless a rule says otherwise, and its
 * one rule about a 2xx answer (`responseSuccessBody`) fails the test only when the value at a path
 * of the answer (read like lodash's `get`, the first element of a list answer) equals a fixed value.
 * These rules turn what the service never answers into a failed test, in words.
 */

/** Fails an answer that is text (a web page, a login form, an empty body) rather than the API's JSON. */
export function textAnswerRule(urlField: string): IAuthenticateRuleResponseSuccessBody {
	return {
		type: 'responseSuccessBody',
		properties: {
			// A text's constructor is String; a JSON object's is Object.
			key: 'constructor.name',
			value: 'String',
			message: `The ${urlField} answered with a web page or text, not the API's JSON answer, so this is not a working credential. Check the ${urlField}: it is the API's address, not a website's or a login page's.`,
		},
	};
}

/** Fails an answer without the list `key` (absent, null, text or an object where the service sends a list). */
export function missingListRule(key: string, message: string): IAuthenticateRuleResponseSuccessBody {
	// Only a list has `every`: a key that reads as undefined is no list.
	return { type: 'responseSuccessBody', properties: { key: `${key}.every`, value: undefined, message } };
}

/**
 * The status rules and the answer rules as one list. n8n types a list as one kind or the other, but
 * its tester reads each rule by its own type: status rules when the answer is an error, answer
 * rules when it is a 2xx.
 */
export function testRules(
	statusRules: IAuthenticateRuleResponseCode[],
	answerRules: IAuthenticateRuleResponseSuccessBody[],
): ICredentialTestRequest['rules'] {
	return [...statusRules, ...answerRules] as ICredentialTestRequest['rules'];
}
