import { operationRouter, type NodeResources } from '../../shared/items/items';
import * as node from './node';
import * as nodeVersion from './nodeVersion';
import * as publisher from './publisher';

/** Every resource and operation of the dropdowns, and the module that runs it. */
export const resources = { node, nodeVersion, publisher } satisfies NodeResources;

/** Picks the operation module from the resource and operation dropdowns, and runs it. */
export const router = operationRouter(resources);
