/**
 * The length of every function of a source file, read with the TypeScript compiler API: each
 * function-like node that has a body (declarations, methods, accessors, constructors, function
 * expressions and arrows), counted from its first line to its last. The structure test uses it to
 * keep functions short by meaning, which a per-file line cap does not.
 */
import ts from 'typescript';

export interface FunctionSize {
	/** 1-based line where the function starts. */
	line: number;
	/** A readable name: `Class.method`, the variable or property it is assigned to, or `(arrow in outer)`. */
	name: string;
	/** First to last line, both counted. */
	lines: number;
}

/** The name of a named function-like node, or undefined for an anonymous one. */
function ownName(node: ts.Node): string | undefined {
	const named = node as ts.Node & { name?: ts.Node };
	if (named.name && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name)))
		return named.name.text;
	if (ts.isConstructorDeclaration(node)) return 'constructor';
	// An arrow or function expression takes the name of what it is assigned to.
	const parent = node.parent;
	if (
		(ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
		ts.isIdentifier(parent.name)
	)
		return parent.name.text;
	return undefined;
}

/** Every function of `source` (the text of `fileName`) with its length. */
export function functionSizes(fileName: string, source: string): FunctionSize[] {
	const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
	const sizes: FunctionSize[] = [];
	const lineOf = (position: number) => file.getLineAndCharacterOfPosition(position).line + 1;
	const visit = (node: ts.Node, outer: string[]) => {
		let inner = outer;
		if (ts.isFunctionLike(node) && 'body' in node && node.body) {
			const own = ownName(node);
			const owner = ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.text}.` : '';
			const name = own ? `${owner}${own}` : `(${ts.isArrowFunction(node) ? 'arrow' : 'function'} in ${outer.at(-1) ?? 'module'})`;
			const line = lineOf(node.getStart(file));
			sizes.push({ line, name, lines: lineOf(node.getEnd()) - line + 1 });
			inner = [...outer, name];
		}
		ts.forEachChild(node, (child) => visit(child, inner));
	};
	visit(file, []);
	return sizes;
}
