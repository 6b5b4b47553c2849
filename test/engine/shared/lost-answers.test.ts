/**
 * A request that makes something (a media task, a registry version) whose answer is lost once the
 * service has it: the item says the request may have been carried out, so the user checks before
 * sending it again, and the node sends it once. (Host Cloud looks a lost submit up by its request
 * id instead: test/engine/HostCloud/lost-submit.test.ts.)
 */
import { EngineHarness } from '../../support/engine';
import { startHostileService, type HostileService } from '../../support/hostile-service';
import { archiveItem, locator } from '../../support/registry-node';
import { IMAGE_URL } from '../../support/media';
import { hostApiCredential } from '../../support/credential-fixtures';

const harness = new EngineHarness();
let service: HostileService;
let api: string;

const MAY_HAVE_BEEN_CARRIED_OUT =
	'The service may have carried it out all the same (a job or task may exist now): check before sending it again.';

beforeAll(async () => {
	// Reads each request whole, then drops the connection without a word: the answer is lost.
	service = await startHostileService((_req, res) => res.socket?.destroy());
	api = harness.addCredential(
		'hostApi',
		hostApiCredential({
			accessToken: 'access-token-lost-0123456789',
			registryUrl: service.url,
			publisherId: 'acme',
			publishingToken: 'publishing-token-lost-0123456',
		}),
	);
});

afterEach(() => {
	service.seen.length = 0;
});

afterAll(async () => {
	await service.close();
});

it.each([
	[
		'Host Media upscale (a task)',
		'hostMedia',
		{ resource: 'image', operation: 'upscale', imageSource: 'url', imageUrl: IMAGE_URL, scaleFactor: '4x', waitMode: 'none' },
		/^The service closed the connection early while starting the upscale task\. /,
	],
	[
		'Host Registry publish (a version)',
		'hostRegistry',
		{ resource: 'nodeVersion', operation: 'publish', publisher: locator('acme', 'id'), node: locator('my-node', 'id'), version: '1.0.0' },
		/^The service closed the connection early while publishing version 1\.0\.0 of node "my-node"\. /,
	],
])(
	'%s: an answer lost after the request arrived says it may have been carried out; it is sent once',
	async (_case, type, parameters, start) => {
		const result = await harness.runNode(
			{ type: type as 'hostMedia' | 'hostRegistry', parameters: parameters as never, credentials: { hostApi: api }, continueOnFail: true },
			[archiveItem()],
		);
		const error = String(result.items[0]!.json.error);
		expect(error).toMatch(start);
		expect(error.endsWith(MAY_HAVE_BEEN_CARRIED_OUT)).toBe(true);
		expect(service.seen.map((request) => request.method)).toEqual(['POST']);
	},
);
