import { operationRouter, type NodeResources } from '../../shared/items/items';
import * as file from './file';
import * as queue from './queue';
import * as server from './server';
import * as system from './system';
import * as workflow from './workflow';

/** Every resource and operation of the dropdowns, and the module that runs it. */
export const resources = { workflow, file, queue, server, system } satisfies NodeResources;

/** Picks the operation module from the resource and operation dropdowns, and runs it. */
export const router = operationRouter(resources);
