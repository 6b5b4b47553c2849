import { operationRouter, type NodeResources } from '../../shared/items/items';
import * as image from './image';
import * as music from './music';
import * as video from './video';

/** Every resource and operation of the dropdowns, and the module that runs it. */
export const resources = { image, video, music } satisfies NodeResources;

/** Picks the operation module from the resource and operation dropdowns, and runs it. */
export const router = operationRouter(resources);
