/** The body field through which an image task (either node's) says where to notify its status changes. */
import type { FieldDefinition } from '../items/fields';

/** Where an image task notifies its status changes (video tasks use `callback_url`). */
export const WEBHOOK_URL_FIELD: FieldDefinition = {
	name: 'webhookUrl',
	api: 'webhook_url',
	displayName: 'Webhook URL',
	kind: 'url',
	description: 'Address notified on each status change of the task, e.g. a Host Task Trigger URL',
};
