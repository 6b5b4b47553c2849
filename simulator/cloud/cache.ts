/**
 * Self-hosted: the upstream server's output cache. A node whose class and inputs (links followed
 * to their sources' own signatures) are the same as in the previous job does not run again: it is
 * listed in `execution_cached`, and an output node sends its earlier `executed` output once more
 * (so a repeated workflow answers the same file names). As upstream's default cache does, only
 * the nodes of the latest job are kept.
 *
 * Only the self-hosted flavour turns it on (it hands one to the engine), but it reads the engine's
 * graphs and outputs and the runner (run.ts) calls it, so it lives here: cloud/ never imports
 * self-hosted/.
 */
import { createHash } from 'node:crypto';

import { asLink, type Graph } from './graph';
import type { NodeOutput } from './types';

/** What one job has of the cache: its nodes served from it, and where its own nodes' results go. */
export interface CachedRun {
	cached: ReadonlyMap<string, { output?: NodeOutput }>;
	/** A node of the job ran: it is cached from now on (with its output, for an output node). */
	store(nodeId: string, output?: NodeOutput): void;
}

export class OutputCache {
	private entries = new Map<string, { output?: NodeOutput }>();

	/** Each node's signature: its class and inputs, links replaced by their source's signature. */
	private static signatures(graph: Graph, order: string[]): Map<string, string> {
		const signatures = new Map<string, string>();
		// `order` runs sources before the nodes that read them, so a link's signature is always known.
		for (const id of order) {
			const inputs = Object.entries(graph[id].inputs).map(([name, value]) => {
				const link = asLink(value);
				return [name, link ? { from: signatures.get(link[0]), output: link[1] } : value];
			});
			// A digest, so a long chain's signature does not grow with every link.
			signatures.set(
				id,
				createHash('sha256')
					.update(JSON.stringify([graph[id].class_type, inputs]))
					.digest('hex'),
			);
		}
		return signatures;
	}

	/** A new job: which of its nodes are cached; everything not in it is forgotten. */
	begin(graph: Graph, order: string[]): CachedRun {
		const signatures = OutputCache.signatures(graph, order);
		const cached = new Map<string, { output?: NodeOutput }>();
		for (const [id, signature] of signatures) {
			const entry = this.entries.get(signature);
			if (entry) cached.set(id, entry);
		}
		const kept = new Set(signatures.values());
		for (const signature of [...this.entries.keys()]) if (!kept.has(signature)) this.entries.delete(signature);
		return {
			cached,
			store: (nodeId, output) => this.entries.set(signatures.get(nodeId)!, output ? { output } : {}),
		};
	}

	clear(): void {
		this.entries.clear();
	}
}
