/**
 * Every workflow in examples/ runs in n8n and its output is checked: the generic checks of
 * support/example-run.ts for all of them, plus the example's own checks from
 * support/example-checks.ts. None is skipped: an example that needs a node this build lacks fails
 * and names the node.
 */
import { e2e } from '../support/context';
import { exampleCheck, exampleTestTimeoutMs, runExample } from '../support/example-run';
import { loadExamples } from '../support/workflows';

const examples = loadExamples();

describe('example workflows in n8n', () => {
	it(`examples/ holds ${examples.length} workflow file(s), all importable`, () => {
		const { examples: imported } = e2e();
		expect(imported.map((example) => example.file)).toEqual(examples.map((example) => example.file));
	});

	for (const example of examples) {
		const label = exampleCheck(example.file)
			? `${example.file} runs and its output checks out`
			: `${example.file} runs (generic checks only: add it to support/example-checks.ts)`;
		it(label, async () => await runExample(e2e(), example), exampleTestTimeoutMs(example.file));
	}
});
