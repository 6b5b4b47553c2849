/**
 * v2: what the route modules share (the books, the engine's board, links, the surface) and the one
 * error shape of the contract, the ErrorEnvelope `{error: {code, message, details?}}`.
 */
import type { ServerResponse } from 'node:http';

import type { AssetBook } from './assets';
import type { V2JobBook } from './jobs';
import type { Links } from './views';
import type { JobBoard } from '../cloud/jobs';
import type { AreaContext, V2Surface } from '../shared/context';
import type { Account, SimRequest } from '../shared/core';
import { sendJson } from '../shared/core';

export interface V2Kit {
	ctx: AreaContext;
	assets: AssetBook;
	book: V2JobBook;
	board: JobBoard;
	links: Links;
	surface: V2Surface;
}

/** A route handler that runs once the caller is known. */
export type AccountHandler = (req: SimRequest, res: ServerResponse, account: Account) => void | Promise<void>;

/** A refusal in the contract's words: HTTP status, error code, a message for people, optional details and Retry-After. */
export interface Refusal {
	status: number;
	code: string;
	message: string;
	details?: Record<string, unknown>;
	retryAfter?: number;
}

export function sendRefusal(res: ServerResponse, refusal: Refusal): void {
	const { status, code, message, details, retryAfter } = refusal;
	sendJson(
		res,
		status,
		{ error: { code, message, ...(details ? { details } : {}) } },
		retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
	);
}

export function refuse(res: ServerResponse, status: number, code: string, message: string, details?: Record<string, unknown>): void {
	sendRefusal(res, { status, code, message, details });
}

/** Whether the surface is the hosted platform (cloud or a deployment): keys, credits and signed URLs. */
export const isHosted = (kit: V2Kit) => kit.surface !== 'self-hosted';

/** Retry-After of every 429, in seconds. */
export const retryAfter = (kit: V2Kit) => Math.max(0, Math.round(kit.ctx.options.v2.retryAfterSeconds));
