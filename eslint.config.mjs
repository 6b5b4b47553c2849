// The lint n8n's community-package verification applies: the recommended rules of
// @n8n/eslint-plugin-community-nodes plus the community, credentials and nodes rules of
// eslint-plugin-n8n-nodes-base, on package.json, nodes/ and credentials/. Inline
// `eslint-disable` comments are not honoured there (noInlineConfig), as in the scanner.
import communityNodes from '@n8n/eslint-plugin-community-nodes';
import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

const strict = { noInlineConfig: true, reportUnusedDisableDirectives: 'off' };
// The scanner also refuses console output in a package.
const noConsole = { 'no-console': 'error' };
const n8nBaseRules = (configName) => n8nNodesBase.configs[configName].rules;

export default [
	{ ignores: ['dist/**', 'node_modules/**', 'simulator/**', 'test/**', 'bench/**', 'examples/**'] },
	{
		files: ['package.json'],
		// typescript-estree parses .json files as one expression statement, which both plugins expect.
		languageOptions: { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } },
		linterOptions: strict,
		plugins: { '@n8n/community-nodes': communityNodes, 'n8n-nodes-base': n8nNodesBase },
		rules: { ...communityNodes.configs.recommended.rules, ...n8nBaseRules('community') },
	},
	{
		files: ['credentials/**/*.ts'],
		languageOptions: { parser: tsParser, parserOptions: { sourceType: 'module' } },
		linterOptions: strict,
		plugins: { '@n8n/community-nodes': communityNodes, 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...communityNodes.configs.recommended.rules,
			...noConsole,
			...n8nBaseRules('credentials'),
			// Wants a camelCased docs slug (n8n's own docs); a community package links a full URL, which
			// the scanner's credential-documentation-url rule requires.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		languageOptions: { parser: tsParser, parserOptions: { sourceType: 'module' } },
		linterOptions: strict,
		plugins: { '@n8n/community-nodes': communityNodes, 'n8n-nodes-base': n8nNodesBase },
		rules: {
			...communityNodes.configs.recommended.rules,
			...noConsole,
			...n8nBaseRules('nodes'),
			// These two want the literal 'main'; the scanner's node-connection-type-literal rule wants
			// NodeConnectionTypes.Main. Both cannot pass: the newer scanner rule wins.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
];
