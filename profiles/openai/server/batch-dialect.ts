/**
 * What differs between OpenAI's Batch API (`/v1/files`, `/v1/batches`) and Azure OpenAI's global batch
 * (`/openai/files`, `/openai/batches?api-version=`, and its v1 API's `/openai/v1/files`, `/openai/v1/batches`): the limits, the endpoints a batch may name and how a line's
 * `url` reaches a route of this server (Azure lines name a deployment as their `model`). docs/protocols/batch.md.
 */
import type { InternalCall, RouteContext } from '../../../src/emulator/core/router.js';
import type { InputLine } from '../../../src/emulator/batch/input-lines.js';
import type { BatchLimits, BatchRecord } from '../../../src/emulator/batch/types.js';
import { accessProblem } from './access.js';
import { azureV1Access } from './azure-v1-access.js';
import { type CompletionsError, type Dialect, sendCompletionsError, stampRequestId } from './errors.js';

/**
 * OpenAI: 50 000 requests or 200 MB per input file. Azure: 100 000 requests, 200 MB, 500 files per resource.
 * Active batches are bounded here (the services bound enqueued tokens instead, which the emulator does not count).
 */
export const LIMITS: Record<Dialect, BatchLimits> = {
  openai: { maxLines: 50_000, maxFileBytes: 200 * 1024 * 1024, maxFiles: 1000, maxActiveBatches: 100 },
  azure: { maxLines: 100_000, maxFileBytes: 200 * 1024 * 1024, maxFiles: 500, maxActiveBatches: 100 },
};

/** The operations a batch may run here, by the endpoint a batch names, and the line `url`s each takes. */
const OPENAI_ENDPOINTS: Record<string, readonly string[]> = {
  '/v1/chat/completions': ['/v1/chat/completions'],
  '/v1/completions': ['/v1/completions'],
  '/v1/embeddings': ['/v1/embeddings'],
  '/v1/responses': ['/v1/responses'],
};

/** Azure names endpoints without `/v1` (its documents' form) and takes the `/v1` form too. */
const AZURE_ENDPOINTS: Record<string, readonly string[]> = {
  '/chat/completions': ['/chat/completions', '/v1/chat/completions'],
  '/v1/chat/completions': ['/chat/completions', '/v1/chat/completions'],
  '/completions': ['/completions', '/v1/completions'],
  '/v1/completions': ['/completions', '/v1/completions'],
  '/embeddings': ['/embeddings', '/v1/embeddings'],
  '/v1/embeddings': ['/embeddings', '/v1/embeddings'],
};

export function lineUrls(dialect: Dialect, endpoint: string): readonly string[] | undefined {
  return (dialect === 'openai' ? OPENAI_ENDPOINTS : AZURE_ENDPOINTS)[endpoint];
}

export function endpointsOf(dialect: Dialect): string[] {
  return Object.keys(dialect === 'openai' ? OPENAI_ENDPOINTS : AZURE_ENDPOINTS);
}

/** The first api-version with batches (2024-07-01-preview; 2024-10-21 is the first GA one). */
const FIRST_BATCH_VERSION = '2024-07-01';

/** The store's scope: one account per dialect. */
export function scopeOf(dialect: Dialect): string {
  return dialect;
}

/** Credentials, then (Azure) an api-version that has batches; answers the problem and returns false. */
export function batchAccess(ctx: RouteContext, dialect: Dialect): boolean {
  // Azure's v1 API (`/openai/v1/files`, `/openai/v1/batches`) takes no dated api-version.
  if (dialect === 'azure' && ctx.request.path.startsWith('/openai/v1/')) return azureV1Access(ctx);
  stampRequestId(ctx);
  const problem = accessProblem(ctx, dialect, '2024-10-21');
  if (problem) {
    sendCompletionsError(ctx, problem.status, problem.error);
    return false;
  }
  const version = ctx.request.query['api-version'];
  if (dialect === 'azure' && version !== undefined && version.slice(0, 10) < FIRST_BATCH_VERSION) {
    sendCompletionsError(ctx, 404, {
      code: '404',
      message: `Resource not found: api-version ${version} has no batch API; use 2024-10-21 or later.`,
    });
    return false;
  }
  return true;
}

/** The route one line runs on: its `url` as it is (OpenAI), or under the deployment its `model` names (Azure). */
export function lineCall(dialect: Dialect, batch: BatchRecord, line: InputLine): InternalCall {
  const body = JSON.stringify(line.body);
  if (dialect === 'openai') return { method: 'POST', path: line.url, body };
  const operation = line.url.replace(/^\/v1/, '');
  const deployment = typeof line.body.model === 'string' ? line.body.model : '';
  return {
    method: 'POST',
    path: `/openai/deployments/${encodeURIComponent(deployment)}${operation}`,
    query: { 'api-version': batch.context.apiVersion ?? '2024-10-21' },
    body,
  };
}

export function modelOf(body: Record<string, unknown>): string | undefined {
  return typeof body.model === 'string' ? body.model : undefined;
}

export function invalid(message: string, param: string | null, code: string | null = null): CompletionsError {
  return { code, message, param, type: 'invalid_request_error' };
}
