/**
 * The Files API as the batch services use it, on `/v1/files` (OpenAI) and `/openai/files?api-version=` (Azure):
 * upload (multipart `file` + `purpose=batch`), list (`purpose`, `order`, `after`, `limit`), retrieve, content and
 * delete. Files live in the server's batch store (src/emulator/batch/store.ts).
 */
import type { Route, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import { parseMultipart } from '../../../src/emulator/batch/multipart.js';
import { batchStoreOf } from '../../../src/emulator/batch/store.js';
import type { StoredFile } from '../../../src/emulator/batch/types.js';
import { batchAccess, invalid, LIMITS, scopeOf } from './batch-dialect.js';
import { type Dialect, sendCompletionsError } from './errors.js';

/** An upload's body: the largest batch file plus the multipart framing. */
export const MAX_UPLOAD_BODY_BYTES = 200 * 1024 * 1024 + 64 * 1024;
/** Batch input files expire after 30 days unless the upload says otherwise (OpenAI's default). */
const FILE_TTL_SECONDS = 30 * 86_400;

export function fileObject(dialect: Dialect, file: StoredFile): Record<string, unknown> {
  const base: Record<string, unknown> = {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: file.createdAt,
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
  };
  if (dialect === 'openai') {
    base.status_details = null;
    base.expires_at = file.createdAt + FILE_TTL_SECONDS;
  }
  return base;
}

function upload(dialect: Dialect): RouteHandler {
  return (ctx) => {
    if (!batchAccess(ctx, dialect)) return;
    const form = parseMultipart(ctx.request.headers['content-type'], ctx.request.body);
    if ('error' in form) return sendCompletionsError(ctx, 400, invalid(form.error, null));
    const purpose = form.fields.purpose;
    if (purpose === undefined)
      return sendCompletionsError(ctx, 400, invalid("Missing required parameter: 'purpose'.", 'purpose'));
    if (purpose !== 'batch')
      return sendCompletionsError(
        ctx,
        400,
        invalid(`This server keeps batch files only: 'purpose' must be 'batch', got '${purpose}'.`, 'purpose'),
      );
    if (!form.file) return sendCompletionsError(ctx, 400, invalid("Missing required parameter: 'file'.", 'file'));
    if (!form.file.filename.toLowerCase().endsWith('.jsonl'))
      return sendCompletionsError(
        ctx,
        400,
        invalid('Invalid file format for Batch API. Must be .jsonl', 'file', 'invalid_file_format'),
      );
    const bytes = Buffer.byteLength(form.file.content);
    const limits = LIMITS[dialect];
    if (bytes > limits.maxFileBytes)
      return sendCompletionsError(
        ctx,
        413,
        invalid(
          `The file is ${bytes} bytes; a batch file may be at most ${limits.maxFileBytes} bytes.`,
          'file',
          'file_too_large',
        ),
      );
    const store = batchStoreOf(ctx.server);
    const scope = scopeOf(dialect);
    if (store.filesIn(scope) >= limits.maxFiles || !store.hasRoomFor(bytes))
      return sendCompletionsError(
        ctx,
        400,
        invalid(
          `The file storage limit is reached (${limits.maxFiles} files or the server's bytes); delete files first.`,
          null,
          'quota_exceeded',
        ),
      );
    const file: StoredFile = {
      id: store.newId(dialect === 'openai' ? 'file-' : 'file-'),
      scope,
      filename: form.file.filename,
      purpose,
      bytes,
      createdAt: Math.floor(Date.now() / 1000),
      content: form.file.content,
    };
    store.putFile(file);
    sendJson(ctx.res, 200, fileObject(dialect, file));
  };
}

/** `limit` as the list routes take it: a whole number in [1, max], else the 400 naming it. */
export function listLimit(ctx: RouteContext, fallback: number, max: number): number | undefined {
  const raw = ctx.request.query.limit;
  if (raw === undefined || raw === '') return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= max)) {
    sendCompletionsError(
      ctx,
      400,
      invalid(`Invalid 'limit': expected a whole number from 1 to ${max}, got '${raw}'.`, 'limit'),
    );
    return undefined;
  }
  return n;
}

function list(dialect: Dialect): RouteHandler {
  return (ctx) => {
    if (!batchAccess(ctx, dialect)) return;
    const limit = listLimit(ctx, 10_000, 10_000);
    if (limit === undefined) return;
    const order = ctx.request.query.order ?? 'desc';
    if (order !== 'asc' && order !== 'desc')
      return sendCompletionsError(
        ctx,
        400,
        invalid(`Invalid 'order': expected 'asc' or 'desc', got '${order}'.`, 'order'),
      );
    const after = ctx.request.query.after;
    const purpose = ctx.request.query.purpose;
    const page = batchStoreOf(ctx.server).listFiles(scopeOf(dialect), {
      limit,
      order,
      ...(after ? { after } : {}),
      ...(purpose ? { purpose } : {}),
    });
    if ('unknownAfter' in page)
      return sendCompletionsError(ctx, 400, invalid(`No such File object: ${after} (the 'after' cursor).`, 'after'));
    sendJson(ctx.res, 200, {
      object: 'list',
      data: page.data.map((f) => fileObject(dialect, f)),
      first_id: page.data[0]?.id ?? null,
      last_id: page.data.at(-1)?.id ?? null,
      has_more: page.hasMore,
    });
  };
}

/** The file the path names, or the 404 the services answer. */
function found(ctx: RouteContext, dialect: Dialect): StoredFile | undefined {
  const id = ctx.params.id!;
  const file = batchStoreOf(ctx.server).file(id, scopeOf(dialect));
  if (!file) sendCompletionsError(ctx, 404, invalid(`No such File object: ${id}`, 'id'));
  return file;
}

function retrieve(dialect: Dialect): RouteHandler {
  return (ctx) => {
    if (!batchAccess(ctx, dialect)) return;
    const file = found(ctx, dialect);
    if (file) sendJson(ctx.res, 200, fileObject(dialect, file));
  };
}

function content(dialect: Dialect): RouteHandler {
  return (ctx) => {
    if (!batchAccess(ctx, dialect)) return;
    const file = found(ctx, dialect);
    if (!file) return;
    ctx.res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(file.bytes),
      'content-disposition': `attachment; filename="${file.filename.replace(/["\\\r\n]/g, '_')}"`,
    });
    ctx.res.end(file.content);
  };
}

function remove(dialect: Dialect): RouteHandler {
  return (ctx) => {
    if (!batchAccess(ctx, dialect)) return;
    const file = found(ctx, dialect);
    if (!file) return;
    batchStoreOf(ctx.server).deleteFile(file.id, scopeOf(dialect));
    sendJson(ctx.res, 200, { id: file.id, object: 'file', deleted: true });
  };
}

export function fileRoutes(prefix: '/v1' | '/openai' | '/openai/v1', dialect: Dialect): Route[] {
  return [
    {
      method: 'POST',
      pattern: `${prefix}/files`,
      handler: upload(dialect),
      body: 'multipart',
      maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
    },
    { method: 'GET', pattern: `${prefix}/files`, handler: list(dialect) },
    { method: 'GET', pattern: `${prefix}/files/:id`, handler: retrieve(dialect) },
    { method: 'DELETE', pattern: `${prefix}/files/:id`, handler: remove(dialect) },
    { method: 'GET', pattern: `${prefix}/files/:id/content`, handler: content(dialect) },
  ];
}
