/**
 * What a user types in n8n's node panel to find each node: its name, and the words of its job
 * (issue 26). The codex test (test/repo/node-panel-codex.test.ts) checks the codex files against
 * it; the editor case (test/e2e/cases/node-panel.ts) searches it in the real panel.
 */
export type PackageNode = 'hostCloud' | 'hostCloudTrigger' | 'hostMedia' | 'hostRegistry' | 'hostTaskTrigger';

export const DISPLAY_NAMES: Record<PackageNode, string> = {
	hostCloud: 'Host Cloud',
	hostCloudTrigger: 'Host Cloud Trigger',
	hostMedia: 'Host Media',
	hostRegistry: 'Host Registry',
	hostTaskTrigger: 'Host Task Trigger',
};

/** Word → the nodes it must find (the trigger in the trigger panel, the others as actions and as tools). */
export const SEARCH_WORDS: Record<string, PackageNode[]> = {
	image: ['hostCloud', 'hostCloudTrigger', 'hostMedia', 'hostTaskTrigger'],
	upscale: ['hostMedia'],
	relight: ['hostMedia'],
	style: ['hostMedia'],
	video: ['hostMedia', 'hostTaskTrigger'],
	music: ['hostMedia'],
	workflow: ['hostCloud'],
	ComfyUI: ['hostCloud', 'hostCloudTrigger'],
	'job finished': ['hostCloudTrigger'],
	'generated image': ['hostCloudTrigger'],
	registry: ['hostRegistry'],
	publish: ['hostRegistry'],
	// The trigger panel lists Host Cloud Trigger under the Host Cloud app, which the word does not name.
	trigger: ['hostTaskTrigger'],
};

/** The words (names first) that must find `node`. */
export function wordsFor(node: PackageNode): string[] {
	return [DISPLAY_NAMES[node], ...Object.keys(SEARCH_WORDS).filter((word) => SEARCH_WORDS[word]!.includes(node))];
}
