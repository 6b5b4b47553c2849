/**
 * One fixture per credential type of credentials/ (`hostCloudApi`, `hostApi`): the data a test
 * stores for it (`harness.addCredential(type, fixture(...))`). Each takes what the test must set as
 * overrides: the address, the test's own secret (so it can look for it in outputs), a wrong key, a
 * field left out on purpose. The fixtures add only what the credential's form would hold anyway,
 * so a test keeps its meaning. No side effects on import (the benchmarks use them too).
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/** Host Cloud API for the cloud: API key and Base URL; the WebSocket address follows the Base URL. */
export function hostCloudApiCredential(values: ICredentialDataDecryptedObject): ICredentialDataDecryptedObject {
	return { wsBaseUrl: '', ...values };
}

/** Host Cloud API for a self-hosted (ComfyUI-compatible) server: Server URL, Proxy Headers if its proxy wants them. */
export function selfHostedCredential(values: ICredentialDataDecryptedObject): ICredentialDataDecryptedObject {
	return { server: 'selfHosted', ...values };
}

/** Host API (media and registry): access token and Registry URL, publisher and tokens when a test needs them. */
export function hostApiCredential(values: ICredentialDataDecryptedObject): ICredentialDataDecryptedObject {
	return { ...values };
}
