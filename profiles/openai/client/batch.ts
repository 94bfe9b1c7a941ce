/**
 * The Batch API in the OpenAI wire format (docs/batch.md "At the provider"): `POST /v1/files` (multipart,
 * `purpose=batch`), `POST /v1/batches {input_file_id, endpoint, completion_window, metadata}`, `GET
 * /v1/batches/{id}`, `POST /v1/batches/{id}/cancel`, `GET /v1/batches?limit&after`, `GET /v1/files/{id}/content`.
 * Azure OpenAI's global batch has the same calls under `{resource}/openai/files|batches?api-version=` (an
 * api-version that has batches: 2024-10-21 or later) or `/openai/v1/…`, and its lines name the deployment as `model`
 * and the route without `/v1` (`/chat/completions`).
 */
import type { BatchEndpoint, BatchOperation } from '../../../src/contract/adapter.js';
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import { UsageError } from '../../../src/contract/errors.js';
import {
  get,
  jsonPost,
  multipartUpload,
  parseBatchObject,
  parseBatchPage,
  parseFileObject,
} from '../../common/batch-objects.js';
import { pathSegment } from '../../common/path-segment.js';
import { azureEndpoint, azureUsesV1 } from './azure-v1.js';

/** OpenAI's limits for one batch input file: 50 000 requests, 200 MB. */
export const OPENAI_BATCH_LIMITS = { maxLines: 50_000, maxBytes: 200 * 1024 * 1024 };
/** Azure OpenAI global batch: 100 000 requests, 200 MB a file. */
export const AZURE_BATCH_LIMITS = { maxLines: 100_000, maxBytes: 200 * 1024 * 1024 };
/** The first GA api-version with `/openai/files` and `/openai/batches`; older profile versions use it for batches. */
export const AZURE_BATCH_API_VERSION = '2024-10-21';

const ROUTES: Record<BatchEndpoint, string> = {
  completions: '/completions',
  chat: '/chat/completions',
  embeddings: '/embeddings',
};

function endpointOf(url: string): BatchEndpoint | undefined {
  const path = url.replace(/\?.*$/, '').replace(/^\/v1(?=\/)/, '');
  return (Object.keys(ROUTES) as BatchEndpoint[]).find((e) => ROUTES[e] === path);
}

function openAiBase(profile: ResolvedProfile): string {
  // Servers document their base URL both as `http://host:port` and as `http://host:port/v1`.
  const base = profile.url.replace(/\/+$/, '');
  return /\/v1$/.test(base) ? base : `${base}/v1`;
}

function bodyOf(spec: { body?: string }): Record<string, unknown> {
  const parsed: unknown = spec.body === undefined ? {} : JSON.parse(spec.body);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}

function query(page: { limit: number; after?: string }): string {
  return `limit=${page.limit}${page.after !== undefined ? `&after=${encodeURIComponent(page.after)}` : ''}`;
}

export const openAiBatch: BatchOperation = {
  limits: OPENAI_BATCH_LIMITS,
  windows: ['24h'],
  lineUrl: (endpoint) => `/v1${ROUTES[endpoint]}`,
  endpointOfUrl: endpointOf,
  lineBody: (spec, _endpoint, model) => ({ model, ...bodyOf(spec) }),
  upload: (profile, _scope, filename, content) =>
    multipartUpload(`${openAiBase(profile)}/files`, {}, filename, content),
  parseFileId: parseFileObject,
  create: (profile, _scope, batch) =>
    jsonPost(
      `${openAiBase(profile)}/batches`,
      {},
      {
        input_file_id: batch.inputFileId,
        endpoint: `/v1${ROUTES[batch.endpoint]}`,
        completion_window: batch.window,
        ...(batch.metadata !== undefined ? { metadata: batch.metadata } : {}),
      },
    ),
  retrieve: (profile, _scope, id) => get(`${openAiBase(profile)}/batches/${pathSegment(id, 'batch id')}`, {}),
  cancel: (profile, _scope, id) =>
    jsonPost(`${openAiBase(profile)}/batches/${pathSegment(id, 'batch id')}/cancel`, {}, {}),
  list: (profile, _scope, page) => get(`${openAiBase(profile)}/batches?${query(page)}`, {}),
  content: (profile, _scope, fileId) =>
    get(`${openAiBase(profile)}/files/${pathSegment(fileId, 'file id')}/content`, {}, 'application/jsonl, */*'),
  parseBatch: parseBatchObject,
  parsePage: parseBatchPage,
};

/** The api-version for batch calls: the profile's when it is a dated one that has batches, else the first GA one. */
export function azureBatchApiVersion(profile: ResolvedProfile): string {
  const own = profile.apiVersion;
  return own !== undefined && /^\d{4}-\d{2}-\d{2}/.test(own) && own.slice(0, 10) >= '2024-07-01'
    ? own
    : AZURE_BATCH_API_VERSION;
}

/** `{resource}/openai/{what}?api-version=…`, or `/openai/v1/{what}` on a v1 profile; `rest` goes before the query. */
function azureUrl(profile: ResolvedProfile, what: string, rest = '', extraQuery = ''): string {
  if (azureUsesV1(profile))
    return `${azureEndpoint(profile)}/openai/v1/${what}${rest}${extraQuery ? `?${extraQuery}` : ''}`;
  const version = `api-version=${encodeURIComponent(azureBatchApiVersion(profile))}`;
  return `${azureEndpoint(profile)}/openai/${what}${rest}?${version}${extraQuery ? `&${extraQuery}` : ''}`;
}

export const azureOpenAiBatch: BatchOperation = {
  limits: AZURE_BATCH_LIMITS,
  windows: ['24h'],
  lineUrl: (endpoint, profile) => `${azureUsesV1(profile) ? '/v1' : ''}${ROUTES[endpoint]}`,
  endpointOfUrl: endpointOf,
  lineBody(spec, _endpoint, model) {
    if (model === '') throw new UsageError('azure-openai batch lines need a deployment name: give -m DEPLOYMENT');
    // The deployment travels in the body: a batch has no deployment in its path.
    return { ...bodyOf(spec), model };
  },
  upload: (profile, _scope, filename, content) => multipartUpload(azureUrl(profile, 'files'), {}, filename, content),
  parseFileId: parseFileObject,
  create: (profile, _scope, batch) =>
    jsonPost(
      azureUrl(profile, 'batches'),
      {},
      {
        input_file_id: batch.inputFileId,
        endpoint: `${azureUsesV1(profile) ? '/v1' : ''}${ROUTES[batch.endpoint]}`,
        completion_window: batch.window,
        ...(batch.metadata !== undefined ? { metadata: batch.metadata } : {}),
      },
    ),
  retrieve: (profile, _scope, id) => get(azureUrl(profile, 'batches', `/${pathSegment(id, 'batch id')}`), {}),
  cancel: (profile, _scope, id) =>
    jsonPost(azureUrl(profile, 'batches', `/${pathSegment(id, 'batch id')}/cancel`), {}, {}),
  list: (profile, _scope, page) => get(azureUrl(profile, 'batches', '', query(page)), {}),
  content: (profile, _scope, fileId) =>
    get(azureUrl(profile, 'files', `/${pathSegment(fileId, 'file id')}/content`), {}, 'application/jsonl, */*'),
  parseBatch: parseBatchObject,
  parsePage: parseBatchPage,
};
