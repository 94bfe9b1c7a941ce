/**
 * watsonx.ai's batch API (IBM's SDK 1.7.11+, `BatchInference` and `Files`): `POST /ml/v1/files` (multipart,
 * `purpose=batch`), `POST /ml/v1/batches {input_file_id, endpoint, completion_window, metadata}`, `GET
 * /ml/v1/batches/{id}`, `POST /ml/v1/batches/{id}/cancel`, `GET /ml/v1/batches?limit`, `GET
 * /ml/v1/files/{id}/content`, each with `?version=` and the space or project in the `X-IBM-SPACE-ID` /
 * `X-IBM-PROJECT-ID` header, as the SDK sends it (and in the query, `space_id` / `project_id`). The lines are
 * OpenAI's format with watsonx routes: `/ml/v1/text/generation`, `/ml/v1/text/chat`, `/ml/v1/text/embeddings`.
 */
import type { BatchEndpoint, BatchOperation, BatchScope } from '../../../src/contract/adapter.js';
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
import { WATSONX_DEFAULT_API_VERSION } from './request.js';
import { watsonxSettings } from '../settings.js';

/** textgen's split size for watsonx batch files (the same as OpenAI's; `--max-lines`/`--max-bytes` lower it). */
export const WATSONX_BATCH_LIMITS = { maxLines: 50_000, maxBytes: 200 * 1024 * 1024 };

const ROUTES: Record<BatchEndpoint, string> = {
  completions: '/ml/v1/text/generation',
  chat: '/ml/v1/text/chat',
  embeddings: '/ml/v1/text/embeddings',
};

/** The space or project: the flags' over the profile's; one is required. */
function scopeOf(profile: ResolvedProfile, scope: BatchScope): { header: Record<string, string>; query: string } {
  const own = watsonxSettings(profile);
  const projectId = scope.project_id ?? (scope.space_id === undefined ? own.projectId : undefined);
  const spaceId = scope.space_id ?? (projectId === undefined ? own.spaceId : undefined);
  if (projectId)
    return { header: { 'x-ibm-project-id': projectId }, query: `project_id=${encodeURIComponent(projectId)}` };
  if (spaceId) return { header: { 'x-ibm-space-id': spaceId }, query: `space_id=${encodeURIComponent(spaceId)}` };
  throw new UsageError(`profile "${profile.name}" needs space_id or project_id for watsonx batches`, {
    hint: 'give --space-id or --project-id, set space_id or project_id in the profile, or TEXTGEN_SPACE_ID / TEXTGEN_PROJECT_ID',
  });
}

function url(
  profile: ResolvedProfile,
  scope: BatchScope,
  path: string,
  extra = '',
): { url: string; headers: Record<string, string> } {
  const s = scopeOf(profile, scope);
  const version = encodeURIComponent(profile.apiVersion ?? WATSONX_DEFAULT_API_VERSION);
  return {
    url: `${profile.url.replace(/\/+$/, '')}${path}?version=${version}&${s.query}${extra ? `&${extra}` : ''}`,
    headers: s.header,
  };
}

function bodyOf(spec: { body?: string }): Record<string, unknown> {
  const parsed: unknown = spec.body === undefined ? {} : JSON.parse(spec.body);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}

export const watsonxBatch: BatchOperation = {
  limits: WATSONX_BATCH_LIMITS,
  windows: ['24h'],
  lineUrl: (endpoint) => ROUTES[endpoint],
  endpointOfUrl: (u) => {
    const path = u.replace(/\?.*$/, '');
    return (Object.keys(ROUTES) as BatchEndpoint[]).find((e) => ROUTES[e] === path);
  },
  lineBody: (spec, _endpoint, model) => ({ model_id: model, ...bodyOf(spec) }),
  upload(profile, scope, filename, content) {
    const u = url(profile, scope, '/ml/v1/files');
    return multipartUpload(u.url, u.headers, filename, content);
  },
  parseFileId: parseFileObject,
  create(profile, scope, batch) {
    const u = url(profile, scope, '/ml/v1/batches');
    return jsonPost(u.url, u.headers, {
      input_file_id: batch.inputFileId,
      endpoint: ROUTES[batch.endpoint],
      completion_window: batch.window,
      ...(batch.metadata !== undefined ? { metadata: batch.metadata } : {}),
    });
  },
  retrieve(profile, scope, id) {
    const u = url(profile, scope, `/ml/v1/batches/${pathSegment(id, 'batch id')}`);
    return get(u.url, u.headers);
  },
  cancel(profile, scope, id) {
    const u = url(profile, scope, `/ml/v1/batches/${pathSegment(id, 'batch id')}/cancel`);
    return jsonPost(u.url, u.headers, {});
  },
  list(profile, scope, page) {
    const u = url(
      profile,
      scope,
      '/ml/v1/batches',
      `limit=${page.limit}${page.after !== undefined ? `&after=${encodeURIComponent(page.after)}` : ''}`,
    );
    return get(u.url, u.headers);
  },
  content(profile, scope, fileId) {
    const u = url(profile, scope, `/ml/v1/files/${pathSegment(fileId, 'file id')}/content`);
    return get(u.url, u.headers, 'application/jsonl, */*');
  },
  parseBatch: parseBatchObject,
  parsePage: parseBatchPage,
};
