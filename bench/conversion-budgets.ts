/**
 * conversion_ms_*: how long the saved-workflow converter takes on the hostile workflows of
 * test/unit/HostCloud/helpers/ui-format/budgets.test.ts (subgraph instances with tens of thousands
 * of inputs), which the test no longer times: a busy machine stretches any time a test asserts.
 * Each case is converted once to warm up, then timed; the figure is the median of three.
 */
import { convertUiWorkflow } from '../nodes/HostCloud/helpers/ui-format/convert';
import { HOSTILE_DEFINITIONS as DEFINITIONS, wideSubgraph } from '../test/support/hostile-ui-workflows';
import { median, report } from './support';

const CASES: Record<string, Parameters<typeof wideSubgraph>[0]> = {
	conversion_ms_60k_inputs_reversed: { inputs: 60_000 },
	conversion_ms_60k_inputs_unknown: { inputs: 60_000, hostInputs: 'other' },
	conversion_ms_60k_proxy_widgets: { inputs: 60_000, hostInputs: 'none', proxyWidgets: true },
	conversion_ms_slots_budget_refusal: { inputs: 30_000, instances: 20, hostInputs: 'none' },
};

function timedConversion(workflow: object): number {
	const started = process.hrtime.bigint();
	convertUiWorkflow(workflow as Record<string, unknown>, DEFINITIONS, 'Workflow');
	return Number(process.hrtime.bigint() - started) / 1e6;
}

const figures: Record<string, number> = {};
for (const [name, options] of Object.entries(CASES)) {
	const workflow = wideSubgraph(options);
	timedConversion(workflow);
	figures[name] = Math.round(median([0, 1, 2].map(() => timedConversion(workflow))) * 100) / 100;
}
report(figures);
