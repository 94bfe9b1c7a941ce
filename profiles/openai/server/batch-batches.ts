/**
 * The Batch API on `/v1/batches` (OpenAI) and `/openai/batches?api-version=` (Azure): create (from an uploaded
 * `purpose=batch` file, an endpoint and a `24h` window), retrieve, cancel and list (newest first, `after`/`limit`).
 * The lines run in the background (src/emulator/batch/runner.ts) on this server's own routes.
 */
import { applyFault } from '../../../src/emulator/core/apply-fault.js';
import type { ProtocolModule, Route, RouteHandler } from '../../../src/emulator/core/router.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import { batchLifeCycleFields } from '../../../src/emulator/batch/batch-object.js';
import { batchNow, windowSeconds } from '../../../src/emulator/batch/pace.js';
import { startBatch } from '../../../src/emulator/batch/runner.js';
import { batchStoreOf } from '../../../src/emulator/batch/store.js';
import { type BatchRecord, TERMINAL_STATUSES } from '../../../src/emulator/batch/types.js';
import { batchAccess, endpointsOf, invalid, LIMITS, lineCall, lineUrls, modelOf, scopeOf } from './batch-dialect.js';
import { fileRoutes, listLimit } from './batch-files.js';
import { completionsFaultWording, type Dialect, sendCompletionsError, sendUnparsableBody } from './errors.js';

export function batchObject(dialect: Dialect, b: BatchRecord): Record<string, unknown> {
  const o: Record<string, unknown> = {
    id: b.id,
    object: 'batch',
    endpoint: b.endpoint,
    errors: b.errors === null ? null : { object: 'list', data: b.errors.map((e) => ({ param: null, ...e })) },
    ...batchLifeCycleFields(b),
    metadata: b.metadata,
  };
  if (dialect === 'openai') {
    o.model = b.model;
    o.usage = {
      input_tokens: b.usage.input_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: b.usage.output_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: b.usage.total_tokens,
    };
  }
  return o;
}

/** Metadata as the services take it: at most 16 string pairs, keys ≤ 64 and values ≤ 512 characters. */
export function metadataProblem(metadata: unknown): string | undefined {
  if (metadata === undefined || metadata === null) return undefined;
  if (typeof metadata !== 'object' || Array.isArray(metadata)) return "'metadata' must be an object of strings.";
  const entries = Object.entries(metadata);
  if (entries.length > 16) return "'metadata' may hold at most 16 pairs.";
  for (const [k, v] of entries) {
    if (typeof v !== 'string') return `'metadata.${k}' must be a string.`;
    if (k.length > 64) return `'metadata' keys may be at most 64 characters; '${k.slice(0, 20)}…' is longer.`;
    if (v.length > 512) return `'metadata.${k}' may be at most 512 characters.`;
  }
  return undefined;
}

function create(dialect: Dialect): RouteHandler {
  return async (ctx) => {
    if (!batchAccess(ctx, dialect)) return;
    if (!('json' in ctx.request)) return sendUnparsableBody(ctx);
    const body = ctx.request.json;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return sendCompletionsError(ctx, 400, invalid('The request body must be a JSON object.', null));
    const b = body as Record<string, unknown>;
    for (const field of ['input_file_id', 'endpoint', 'completion_window'] as const)
      if (typeof b[field] !== 'string' || b[field] === '')
        return sendCompletionsError(ctx, 400, invalid(`Missing required parameter: '${field}'.`, field));
    const endpoint = b.endpoint as string;
    const urls = lineUrls(dialect, endpoint);
    if (!urls)
      return sendCompletionsError(
        ctx,
        400,
        invalid(`Invalid 'endpoint' '${endpoint}': expected one of ${endpointsOf(dialect).join(', ')}.`, 'endpoint'),
      );
    const window = b.completion_window as string;
    const seconds = windowSeconds(window);
    if (window !== '24h' || seconds === undefined)
      return sendCompletionsError(
        ctx,
        400,
        invalid(`Invalid 'completion_window' '${window}': only '24h' is supported.`, 'completion_window'),
      );
    const metadata = metadataProblem(b.metadata);
    if (metadata) return sendCompletionsError(ctx, 400, invalid(metadata, 'metadata'));
    const store = batchStoreOf(ctx.server);
    const scope = scopeOf(dialect);
    const input = store.file(b.input_file_id as string, scope);
    if (input?.purpose !== 'batch')
      return sendCompletionsError(
        ctx,
        400,
        invalid(
          input
            ? `File ${input.id} has purpose '${input.purpose}', not 'batch'.`
            : `No such File object: ${String(b.input_file_id)}`,
          'input_file_id',
        ),
      );
    const limits = LIMITS[dialect];
    if (store.activeBatchesIn(scope) >= limits.maxActiveBatches)
      return sendCompletionsError(
        ctx,
        429,
        invalid(
          `You have ${limits.maxActiveBatches} batches in progress, the most this server runs at once; wait for one to finish.`,
          null,
          'batch_limit_exceeded',
        ),
      );
    // Faults hit only a batch the service would have accepted; a batch-* fault shapes its life, others its answer.
    const fault = takeFault(ctx, false, { auxiliary: true, batch: true });
    if (
      fault?.kind !== 'batch' &&
      (await applyFault(fault, ctx, completionsFaultWording(ctx, ctx.request.query['api-version'])))
    )
      return;
    const now = Math.floor(Date.now() / 1000);
    const batch: BatchRecord = {
      id: store.newId('batch_'),
      scope,
      dialect,
      endpoint,
      inputFileId: input.id,
      completionWindow: window,
      windowSeconds: seconds,
      metadata: (b.metadata as Record<string, string> | null | undefined) ?? null,
      status: 'validating',
      createdAt: now,
      expiresAt: now + seconds,
      times: {},
      counts: { total: 0, completed: 0, failed: 0 },
      errors: null,
      outputFileId: null,
      errorFileId: null,
      model: null,
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
      elapsedMs: 0,
      cancelRequested: false,
      context: ctx.request.query['api-version'] ? { apiVersion: ctx.request.query['api-version'] } : {},
    };
    store.putBatch(batch);
    startBatch({
      store,
      batch,
      input: input.content,
      rules: { limits, urls, modelOf },
      fault: fault?.kind === 'batch' ? fault : undefined,
      speed: ctx.server.options.batchSpeed,
      signal: ctx.server.closed,
      call: (line) => lineCall(dialect, batch, line),
      dispatch: (call) => ctx.server.dispatch(call),
      log: ctx.server.log,
    });
    sendJson(ctx.res, 200, batchObject(dialect, batch));
  };
}

function foundBatch(dialect: Dialect, ctx: Parameters<RouteHandler>[0]): BatchRecord | undefined {
  const id = ctx.params.id!;
  const batch = batchStoreOf(ctx.server).batch(id, scopeOf(dialect), dialect);
  if (!batch) sendCompletionsError(ctx, 404, invalid(`No such Batch object: ${id}`, 'id'));
  return batch;
}

function retrieve(dialect: Dialect): RouteHandler {
  return (ctx) => {
    if (!batchAccess(ctx, dialect)) return;
    const batch = foundBatch(dialect, ctx);
    if (batch) sendJson(ctx.res, 200, batchObject(dialect, batch));
  };
}

function cancel(dialect: Dialect): RouteHandler {
  return (ctx) => {
    if (!batchAccess(ctx, dialect)) return;
    const batch = foundBatch(dialect, ctx);
    if (!batch) return;
    if (batch.status !== 'cancelling') {
      if (TERMINAL_STATUSES.has(batch.status) || batch.status === 'finalizing')
        return sendCompletionsError(
          ctx,
          409,
          invalid(`Cannot cancel a batch with status '${batch.status}'.`, null, 'batch_not_cancellable'),
        );
      batch.cancelRequested = true;
      batch.status = 'cancelling';
      batch.times.cancelling_at = batchNow(batch);
    }
    sendJson(ctx.res, 200, batchObject(dialect, batch));
  };
}

function list(dialect: Dialect): RouteHandler {
  return (ctx) => {
    if (!batchAccess(ctx, dialect)) return;
    const limit = listLimit(ctx, 20, 100);
    if (limit === undefined) return;
    const after = ctx.request.query.after;
    const page = batchStoreOf(ctx.server).listBatches(scopeOf(dialect), dialect, {
      limit,
      ...(after ? { after } : {}),
    });
    if ('unknownAfter' in page)
      return sendCompletionsError(ctx, 400, invalid(`No such Batch object: ${after} (the 'after' cursor).`, 'after'));
    sendJson(ctx.res, 200, {
      object: 'list',
      data: page.data.map((b) => batchObject(dialect, b)),
      first_id: page.data[0]?.id ?? null,
      last_id: page.data.at(-1)?.id ?? null,
      has_more: page.hasMore,
    });
  };
}

function batchRoutes(prefix: '/v1' | '/openai' | '/openai/v1', dialect: Dialect): Route[] {
  return [
    { method: 'POST', pattern: `${prefix}/batches`, handler: create(dialect) },
    { method: 'GET', pattern: `${prefix}/batches`, handler: list(dialect) },
    { method: 'GET', pattern: `${prefix}/batches/:id`, handler: retrieve(dialect) },
    { method: 'POST', pattern: `${prefix}/batches/:id/cancel`, handler: cancel(dialect) },
  ];
}

/** Files and batches, OpenAI's and Azure's. */
export const openAiBatchProtocol: ProtocolModule = {
  name: 'openai-batch',
  prefixes: ['/openai/', '/v1/'],
  routes: [
    ...fileRoutes('/v1', 'openai'),
    ...batchRoutes('/v1', 'openai'),
    ...fileRoutes('/openai', 'azure'),
    ...batchRoutes('/openai', 'azure'),
    ...fileRoutes('/openai/v1', 'azure'),
    ...batchRoutes('/openai/v1', 'azure'),
  ],
  sendError(ctx, status, code, message, headers) {
    sendCompletionsError(ctx, status, { code, message }, headers);
  },
};
