/**
 * Listings of the completions protocols. Azure OpenAI: `GET /openai/deployments?api-version=` →
 * `{data: [{id, model, status, …}], object: "list"}` — the data-plane "authoring" operation of API versions
 * 2022-03-01-preview to 2023-03-15-preview (the seed document covers inference only, so this follows those
 * versions; later GA versions dropped it, hence its own api-version). OpenAI-compatible servers: `GET /v1/models`
 * → `{data: [{id, object, owned_by}]}`. Neither pages.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { modelEntry } from '../../../src/contract/model-entry.js';
import type { ModelEntry, ModelPage, ModelsOperation } from '../../../src/contract/adapter.js';
import { fieldAt, isRecord, textOf } from '../../../src/contract/wire-fields.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import { AZURE_V1_API_VERSION, azureUsesV1, azureV1Url } from './azure-v1.js';

/** API versions whose data plane still lists deployments. */
export const DEPLOYMENT_LISTING_VERSIONS: readonly string[] = [
  '2022-03-01-preview',
  '2022-06-01-preview',
  '2022-12-01',
  '2023-03-15-preview',
];
/** The last GA version with the operation: used when the profile's version (for completions) has none. */
export const DEPLOYMENT_LISTING_VERSION = '2022-12-01';

/** The profile's api-version when it still lists deployments, else the last GA version that does. */
export function deploymentListingVersion(profile: ResolvedProfile): string {
  const own = profile.apiVersion;
  if (azureUsesV1(profile)) return AZURE_V1_API_VERSION;
  return own !== undefined && DEPLOYMENT_LISTING_VERSIONS.includes(own) ? own : DEPLOYMENT_LISTING_VERSION;
}

const ACCEPT_JSON = { accept: 'application/json' };

/** Azure's listing: the deployments (dated versions), or the v1 API's `GET /openai/v1/models`. */
export function azureDeploymentsRequest(profile: ResolvedProfile): HttpRequestSpec {
  if (azureUsesV1(profile)) return { method: 'GET', url: azureV1Url(profile, '/models'), headers: ACCEPT_JSON };
  // As for completions: the endpoint is pasted with or without Azure's `/openai` segment.
  const base = profile.url.replace(/\/+$/, '').replace(/\/openai$/, '');
  return {
    method: 'GET',
    url: `${base}/openai/deployments?api-version=${encodeURIComponent(deploymentListingVersion(profile))}`,
    headers: ACCEPT_JSON,
  };
}

export function openAiModelsRequest(profile: ResolvedProfile): HttpRequestSpec {
  // As for completions: servers document their base URL both with and without `/v1`.
  const base = profile.url.replace(/\/+$/, '');
  return { method: 'GET', url: /\/v1$/.test(base) ? `${base}/models` : `${base}/v1/models`, headers: ACCEPT_JSON };
}

/**
 * `{data: [...]}` → one page, each item read by `read`. A body without the array, or items none of which has an
 * `id`, is not a listing of this protocol: an UnexpectedAnswer names what is missing (never an empty list, exit 0).
 */
export function dataPage(body: unknown, read: (item: unknown) => ModelEntry | undefined): ModelPage {
  if (!isRecord(body) || !Array.isArray(body.data)) throw new UnexpectedAnswer('the answer has no "data" array');
  const entries = body.data.map(read).filter((e): e is ModelEntry => e !== undefined);
  if (entries.length === 0 && body.data.length > 0) throw new UnexpectedAnswer('data[0] has no "id" string');
  return { entries, items: body.data };
}

export function azureDeploymentEntry(item: unknown): ModelEntry | undefined {
  const id = textOf(fieldAt(item, 'id'));
  if (id === undefined) return undefined;
  return modelEntry({
    id,
    kind: 'deployment',
    model: textOf(fieldAt(item, 'model')),
    status: textOf(fieldAt(item, 'status')),
  });
}

/** An item of either Azure listing: a deployment (it has `model`), or a model of the v1 API's list. */
export function azureEntry(item: unknown): ModelEntry | undefined {
  return fieldAt(item, 'object') === 'model' ? openAiModelEntry(item) : azureDeploymentEntry(item);
}

export function openAiModelEntry(item: unknown): ModelEntry | undefined {
  const id = textOf(fieldAt(item, 'id'));
  if (id === undefined) return undefined;
  return modelEntry({ id, kind: 'model', provider: textOf(fieldAt(item, 'owned_by')) });
}

export const azureOpenAiModels: ModelsOperation = {
  // An Azure resource is addressed by deployment, so its list is the deployments, with or without --deployments.
  scopes: ['deployments'],
  listRequests: (profile) => [azureDeploymentsRequest(profile)],
  parsePage: (body) => dataPage(body, azureEntry),
};

export const openAiModels: ModelsOperation = {
  scopes: ['models'],
  listRequests: (profile) => [openAiModelsRequest(profile)],
  parsePage: (body) => dataPage(body, openAiModelEntry),
};
