/**
 * watsonx.ai's batch API as `serve` answers it (IBM's SDK 1.7.x, `BatchInference` and its `Files`): `/ml/v1/files`
 * (multipart upload with `purpose=batch`, list with `after`/`limit`/`purpose`/`order`, retrieve, content, delete)
 * and `/ml/v1/batches` (create, list with `limit`, retrieve, cancel), every call with `?version=` and the project or
 * space in the `X-IBM-PROJECT-ID` / `X-IBM-SPACE-ID` header (or `project_id`/`space_id` in the query). The SDK sends
 * the API key itself as a bearer token; an IAM token works too. Files and batches belong to their project or space.
 * The lines run in the background (src/emulator/batch/runner.ts); docs/protocols/batch.md has the wire facts.
 */
import { applyFault } from '../../../src/emulator/core/apply-fault.js';
import type { InternalCall, ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import { batchLifeCycleFields } from '../../../src/emulator/batch/batch-object.js';
import type { InputLine } from '../../../src/emulator/batch/input-lines.js';
import { parseMultipart } from '../../../src/emulator/batch/multipart.js';
import { batchNow, windowSeconds } from '../../../src/emulator/batch/pace.js';
import { startBatch } from '../../../src/emulator/batch/runner.js';
import { batchStoreOf } from '../../../src/emulator/batch/store.js';
import {
  type BatchLimits,
  type BatchRecord,
  type StoredFile,
  TERMINAL_STATUSES,
} from '../../../src/emulator/batch/types.js';
import { authorizeGeneration } from './auth.js';
import { sendWatsonxError, watsonxFaultWording } from './errors.js';

/** The emulator's limits (IBM documents none it could take): OpenAI's, 50 000 requests or 200 MB a file. */
export const WATSONX_BATCH_LIMITS: BatchLimits = {
  maxLines: 50_000,
  maxFileBytes: 200 * 1024 * 1024,
  maxFiles: 1000,
  maxActiveBatches: 100,
};

const MAX_UPLOAD_BODY_BYTES = 200 * 1024 * 1024 + 64 * 1024;
const DIALECT = 'watsonx';

/**
 * The endpoints a batch may name: the OpenAI-compatible ones IBM's SDKs use (answered by this server's `/v1`
 * routes) and watsonx's own text routes (answered by its `/ml/v1/text/…` routes, with the batch's project or space).
 */
const ENDPOINTS = [
  '/v1/chat/completions',
  '/v1/completions',
  '/v1/embeddings',
  '/ml/v1/text/chat',
  '/ml/v1/text/generation',
  '/ml/v1/text/embeddings',
] as const;

const VERSION_DATE = /^\d{4}-\d{2}-\d{2}$/;

function fail(ctx: RouteContext, status: number, code: string, message: string): void {
  sendWatsonxError(ctx.res, status, [{ code, message }]);
}

/** Credentials, `version`, then the project or space; the scope (`project:ID`, `space:ID`) or undefined once answered. */
function prelude(ctx: RouteContext): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.request.headers.authorization ?? '');
  const apiKeyAsBearer = bearer !== null && ctx.server.options.apiKeys.includes(bearer[1]!);
  if (!apiKeyAsBearer) {
    const auth = authorizeGeneration(ctx);
    if (!auth.ok) return void fail(ctx, 401, auth.code, auth.message);
  }
  const version = ctx.request.query.version;
  if (version === undefined || version === '')
    return void fail(ctx, 400, 'invalid_request_entity', "Missing query parameter 'version'");
  if (!VERSION_DATE.test(version))
    return void fail(
      ctx,
      400,
      'invalid_request_entity',
      `Invalid value '${version}' for query parameter 'version': expected YYYY-MM-DD`,
    );
  const project = ctx.request.headers['x-ibm-project-id'] ?? ctx.request.query.project_id;
  const space = ctx.request.headers['x-ibm-space-id'] ?? ctx.request.query.space_id;
  if ((project === undefined || project === '') === (space === undefined || space === ''))
    return void fail(
      ctx,
      400,
      'invalid_request_entity',
      'Exactly one of the X-IBM-PROJECT-ID or X-IBM-SPACE-ID headers (project_id or space_id) must be given',
    );
  return project ? `project:${project}` : `space:${space}`;
}

function fileObject(file: StoredFile): Record<string, unknown> {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: file.createdAt,
    expires_at: 0,
    filename: file.filename,
    purpose: file.purpose,
  };
}

export function watsonxBatchObject(b: BatchRecord): Record<string, unknown> {
  return {
    id: b.id,
    object: 'batch',
    endpoint: b.endpoint,
    // The SDK types `errors` as a list of messages: each names its line and code.
    errors:
      b.errors === null
        ? null
        : b.errors.map((e) => `${e.line === null ? '' : `line ${e.line}: `}${e.code}: ${e.message}`),
    ...batchLifeCycleFields(b),
    metadata: b.metadata ?? {},
  };
}

function limitOf(ctx: RouteContext, fallback: number, max: number): number | undefined {
  const raw = ctx.request.query.limit;
  if (raw === undefined || raw === '') return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (n >= 1 && n <= max) return n;
  fail(ctx, 400, 'invalid_request_entity', `Invalid value '${raw}' for query parameter 'limit': expected 1 to ${max}`);
  return undefined;
}

const upload: RouteHandler = (ctx) => {
  const scope = prelude(ctx);
  if (scope === undefined) return;
  const form = parseMultipart(ctx.request.headers['content-type'], ctx.request.body);
  if ('error' in form) return fail(ctx, 400, 'invalid_request_entity', form.error);
  const purpose = form.fields.purpose ?? 'batch';
  if (purpose !== 'batch')
    return fail(ctx, 400, 'invalid_request_entity', `Invalid purpose '${purpose}': expected 'batch'`);
  if (!form.file) return fail(ctx, 400, 'invalid_request_entity', "Missing form field 'file'");
  const bytes = Buffer.byteLength(form.file.content);
  const store = batchStoreOf(ctx.server);
  if (bytes > WATSONX_BATCH_LIMITS.maxFileBytes)
    return fail(ctx, 413, 'file_too_large', `The file is ${bytes} bytes; at most ${WATSONX_BATCH_LIMITS.maxFileBytes}`);
  if (store.filesIn(scope) >= WATSONX_BATCH_LIMITS.maxFiles || !store.hasRoomFor(bytes))
    return fail(ctx, 400, 'quota_exceeded', 'The file storage limit is reached; delete files first');
  const file: StoredFile = {
    id: store.newId('file-'),
    scope,
    filename: form.file.filename,
    purpose,
    bytes,
    createdAt: Math.floor(Date.now() / 1000),
    content: form.file.content,
  };
  store.putFile(file);
  sendJson(ctx.res, 201, fileObject(file));
};

const listFiles: RouteHandler = (ctx) => {
  const scope = prelude(ctx);
  if (scope === undefined) return;
  const limit = limitOf(ctx, 10_000, 10_000);
  if (limit === undefined) return;
  const order = ctx.request.query.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc')
    return fail(ctx, 400, 'invalid_request_entity', `Invalid value '${order}' for query parameter 'order'`);
  const { after, purpose } = ctx.request.query;
  const page = batchStoreOf(ctx.server).listFiles(scope, {
    limit,
    order,
    ...(after ? { after } : {}),
    ...(purpose ? { purpose } : {}),
  });
  if ('unknownAfter' in page) return fail(ctx, 400, 'invalid_request_entity', `Unknown 'after' file id '${after}'`);
  sendJson(ctx.res, 200, {
    object: 'list',
    data: page.data.map(fileObject),
    first_id: page.data[0]?.id ?? null,
    last_id: page.data.at(-1)?.id ?? null,
    has_more: page.hasMore,
  });
};

function foundFile(ctx: RouteContext, scope: string): StoredFile | undefined {
  const file = batchStoreOf(ctx.server).file(ctx.params.id!, scope);
  if (!file) fail(ctx, 404, 'file_not_found', `File with id '${ctx.params.id}' does not exist`);
  return file;
}

const getFile: RouteHandler = (ctx) => {
  const scope = prelude(ctx);
  const file = scope === undefined ? undefined : foundFile(ctx, scope);
  if (file) sendJson(ctx.res, 200, fileObject(file));
};

const fileContent: RouteHandler = (ctx) => {
  const scope = prelude(ctx);
  const file = scope === undefined ? undefined : foundFile(ctx, scope);
  if (!file) return;
  ctx.res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(file.bytes) });
  ctx.res.end(file.content);
};

const deleteFile: RouteHandler = (ctx) => {
  const scope = prelude(ctx);
  const file = scope === undefined ? undefined : foundFile(ctx, scope);
  if (!file || scope === undefined) return;
  batchStoreOf(ctx.server).deleteFile(file.id, scope);
  sendJson(ctx.res, 200, { id: file.id, object: 'file', deleted: true });
};

/** The route a line runs on: `/v1/…` as it is; `/ml/v1/text/…` with the version and the batch's project or space. */
function lineCall(batch: BatchRecord, line: InputLine): InternalCall {
  if (line.url.startsWith('/v1/')) return { method: 'POST', path: line.url, body: JSON.stringify(line.body) };
  const body: Record<string, unknown> = { ...line.body };
  if (body.project_id === undefined && body.space_id === undefined) {
    const [kind, id] = [
      batch.scope.slice(0, batch.scope.indexOf(':')),
      batch.scope.slice(batch.scope.indexOf(':') + 1),
    ];
    body[kind === 'project' ? 'project_id' : 'space_id'] = id;
  }
  return {
    method: 'POST',
    path: line.url,
    query: { version: batch.context.version ?? '2024-05-01' },
    body: JSON.stringify(body),
  };
}

function modelOf(body: Record<string, unknown>): string | undefined {
  const model = body.model_id ?? body.model;
  return typeof model === 'string' ? model : undefined;
}

const createBatch: RouteHandler = async (ctx) => {
  const scope = prelude(ctx);
  if (scope === undefined) return;
  if (!('json' in ctx.request))
    return fail(
      ctx,
      400,
      'json_validation_error',
      'Json document validation error: the request body is not valid JSON',
    );
  const b = ctx.request.json as Record<string, unknown>;
  if (typeof b !== 'object' || b === null || Array.isArray(b))
    return fail(ctx, 400, 'json_validation_error', 'Json document validation error: the body must be an object');
  for (const field of ['input_file_id', 'endpoint', 'completion_window'] as const)
    if (typeof b[field] !== 'string' || b[field] === '')
      return fail(ctx, 400, 'json_validation_error', `Json document validation error: '${field}' is required`);
  const endpoint = b.endpoint as string;
  if (!(ENDPOINTS as readonly string[]).includes(endpoint))
    return fail(
      ctx,
      400,
      'invalid_request_entity',
      `Invalid endpoint '${endpoint}': expected one of ${ENDPOINTS.join(', ')}`,
    );
  const window = b.completion_window as string;
  const seconds = windowSeconds(window);
  if (seconds === undefined)
    return fail(ctx, 400, 'invalid_request_entity', `Invalid completion_window '${window}': expected e.g. 24h`);
  const metadata = b.metadata;
  if (
    metadata !== undefined &&
    metadata !== null &&
    (typeof metadata !== 'object' ||
      Array.isArray(metadata) ||
      Object.values(metadata).some((v) => typeof v !== 'string'))
  )
    return fail(
      ctx,
      400,
      'json_validation_error',
      "Json document validation error: 'metadata' must map strings to strings",
    );
  const store = batchStoreOf(ctx.server);
  const input = store.file(b.input_file_id as string, scope);
  if (!input) return fail(ctx, 404, 'file_not_found', `File with id '${String(b.input_file_id)}' does not exist`);
  if (store.activeBatchesIn(scope) >= WATSONX_BATCH_LIMITS.maxActiveBatches)
    return fail(ctx, 429, 'too_many_requests', `At most ${WATSONX_BATCH_LIMITS.maxActiveBatches} batches run at once`);
  const fault = takeFault(ctx, false, { auxiliary: true, batch: true });
  if (fault?.kind !== 'batch' && (await applyFault(fault, ctx, watsonxFaultWording(ctx.res)))) return;
  const now = Math.floor(Date.now() / 1000);
  const batch: BatchRecord = {
    id: store.newId('batch_'),
    scope,
    dialect: DIALECT,
    endpoint,
    inputFileId: input.id,
    completionWindow: window,
    windowSeconds: seconds,
    metadata: (metadata as Record<string, string> | null | undefined) ?? null,
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
    context: { version: ctx.request.query.version! },
  };
  store.putBatch(batch);
  startBatch({
    store,
    batch,
    input: input.content,
    rules: { limits: WATSONX_BATCH_LIMITS, urls: [endpoint], modelOf },
    fault: fault?.kind === 'batch' ? fault : undefined,
    speed: ctx.server.options.batchSpeed,
    signal: ctx.server.closed,
    call: (line) => lineCall(batch, line),
    dispatch: (call) => ctx.server.dispatch(call),
    log: ctx.server.log,
  });
  sendJson(ctx.res, 201, watsonxBatchObject(batch));
};

function foundBatch(ctx: RouteContext, scope: string): BatchRecord | undefined {
  const batch = batchStoreOf(ctx.server).batch(ctx.params.id!, scope, DIALECT);
  if (!batch) fail(ctx, 404, 'batch_not_found', `Batch with id '${ctx.params.id}' does not exist`);
  return batch;
}

const getBatch: RouteHandler = (ctx) => {
  const scope = prelude(ctx);
  const batch = scope === undefined ? undefined : foundBatch(ctx, scope);
  if (batch) sendJson(ctx.res, 200, watsonxBatchObject(batch));
};

const cancelBatch: RouteHandler = (ctx) => {
  const scope = prelude(ctx);
  const batch = scope === undefined ? undefined : foundBatch(ctx, scope);
  if (!batch) return;
  if (batch.status !== 'cancelling') {
    if (TERMINAL_STATUSES.has(batch.status) || batch.status === 'finalizing')
      return fail(ctx, 409, 'batch_not_cancellable', `Cannot cancel a batch with status '${batch.status}'`);
    batch.cancelRequested = true;
    batch.status = 'cancelling';
    batch.times.cancelling_at = batchNow(batch);
  }
  sendJson(ctx.res, 200, watsonxBatchObject(batch));
};

const listBatches: RouteHandler = (ctx) => {
  const scope = prelude(ctx);
  if (scope === undefined) return;
  const limit = limitOf(ctx, 20, 100);
  if (limit === undefined) return;
  const after = ctx.request.query.after;
  const page = batchStoreOf(ctx.server).listBatches(scope, DIALECT, { limit, ...(after ? { after } : {}) });
  if ('unknownAfter' in page) return fail(ctx, 400, 'invalid_request_entity', `Unknown 'after' batch id '${after}'`);
  sendJson(ctx.res, 200, {
    object: 'list',
    data: page.data.map(watsonxBatchObject),
    first_id: page.data[0]?.id ?? null,
    last_id: page.data.at(-1)?.id ?? null,
    has_more: page.hasMore,
  });
};

export const watsonxBatchProtocol: ProtocolModule = {
  name: 'watsonx-batch',
  prefixes: ['/ml/'],
  routes: [
    {
      method: 'POST',
      pattern: '/ml/v1/files',
      handler: upload,
      body: 'multipart',
      maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
    },
    { method: 'GET', pattern: '/ml/v1/files', handler: listFiles },
    { method: 'GET', pattern: '/ml/v1/files/:id', handler: getFile },
    { method: 'DELETE', pattern: '/ml/v1/files/:id', handler: deleteFile },
    { method: 'GET', pattern: '/ml/v1/files/:id/content', handler: fileContent },
    { method: 'POST', pattern: '/ml/v1/batches', handler: createBatch },
    { method: 'GET', pattern: '/ml/v1/batches', handler: listBatches },
    { method: 'GET', pattern: '/ml/v1/batches/:id', handler: getBatch },
    { method: 'POST', pattern: '/ml/v1/batches/:id/cancel', handler: cancelBatch },
  ],
  sendError(ctx, status, code, message, headers) {
    sendWatsonxError(ctx.res, status, [{ code, message }], headers);
  },
};
