// Jest's transform for TypeScript: esbuild strips the types of a file in about a millisecond, where
// TypeScript's own transpiler took tens (on a fresh clone each Jest worker transpiled the same
// support and node files again before Jest's cache had them: 20 to 30 s of `npm test` on two cores).
// Type-checking is `npm run typecheck`'s job. A file that calls jest.mock goes through ts-jest, which
// hoists that call above the file's imports as Jest requires; esbuild would leave it below them.
const { createHash } = require('node:crypto');
const { transformSync } = require('esbuild');
const esbuildVersion = require('esbuild/package.json').version;
// A change of this file (or of esbuild) makes every cached transform stale.
const THIS_FILE = require('node:fs').readFileSync(__filename);

const COMPILER_OPTIONS = { useDefineForClassFields: true, esModuleInterop: true };
/**
 * esbuild's CommonJS helpers, made to behave as TypeScript's output did: a module's exports are
 * getters that can be redefined (tests spy on them: jest.spyOn(module, 'fn')), and `import * as m`
 * of a compiled ES module is that module itself, not a copy (a spy set through it is seen by every
 * other importer). Each entry: the helper's name, and its text before and after.
 */
const HELPERS = [
	[
		'__export',
		'__defProp(target, name, { get: all[name], enumerable: true })',
		'__defProp(target, name, { get: all[name], enumerable: true, configurable: true })',
	],
	['__copyProps', 'desc.enumerable })', 'desc.enumerable, configurable: true })'],
	[
		'__toESM',
		'var __toESM = (mod, isNodeMode, target) => (',
		'var __toESM = (mod, isNodeMode, target) => mod?.__esModule && !isNodeMode ? mod : (',
	],
];
function asTypeScriptDid(code) {
	for (const [helper, from, to] of HELPERS) {
		if (!code.includes(`var ${helper} =`)) continue;
		if (!code.includes(from)) throw new Error(`test/transform.js: esbuild ${esbuildVersion} writes ${helper} differently; update HELPERS`);
		code = code.replace(from, to);
	}
	return code;
}
const usesModuleMocks = (source) => /\bjest\.(mock|unmock|enableAutomock|disableAutomock)\(/.test(source);
let tsJest;
const hoisting = () => (tsJest ??= require('ts-jest').default.createTransformer({ diagnostics: false }));

module.exports = {
	process(source, filename, options) {
		if (usesModuleMocks(source)) return hoisting().process(source, filename, options);
		const { code, map } = transformSync(source, {
			loader: 'ts',
			format: 'cjs',
			target: 'es2022',
			sourcemap: 'external',
			sourcefile: filename,
			tsconfigRaw: { compilerOptions: COMPILER_OPTIONS },
			// import() as a require, as TypeScript compiles it for CommonJS (Jest's VM has no ES module loader).
			supported: { 'dynamic-import': false },
		});
		return { code: asTypeScriptDid(code), map };
	},
	getCacheKey(source, filename, options) {
		if (usesModuleMocks(source)) return `ts-jest:${hoisting().getCacheKey(source, filename, options)}`;
		return createHash('sha1').update(THIS_FILE).update(`esbuild ${esbuildVersion}\0${filename}\0`).update(source).digest('hex');
	},
};
