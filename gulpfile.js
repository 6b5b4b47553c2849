// Copies what tsc does not emit (icons and codex .node.json files) into dist/, keeping paths.
const { src, dest, parallel } = require('gulp');

function copyIcons() {
	return src(['icons/*.svg', 'nodes/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(dest('dist'));
}

function copyCodex() {
	return src('nodes/**/*.node.json', { base: '.' }).pipe(dest('dist'));
}

exports.build = parallel(copyIcons, copyCodex);
exports.default = exports.build;
