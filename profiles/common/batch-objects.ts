/**
 * The files-and-batches wire that OpenAI, Azure OpenAI and watsonx.ai share (their batch services copy OpenAI's):
 * a multipart upload with `purpose=batch`, batch objects `{id, object: "batch", status, input_file_id,
 * output_file_id, error_file_id, request_counts: {total, completed, failed}, …}` and list pages `{data, has_more,
 * last_id}`. Reading them is the same for the three adapters; paths, scope and versions are each adapter's.
 */
import { randomBytes } from 'node:crypto';
import { UnexpectedAnswer } from '../../src/contract/errors.js';
import type { ProviderBatch, ProviderBatchPage } from '../../src/contract/adapter.js';
import type { HttpRequestSpec } from '../../src/contract/http.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

function time(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** `errors` is `{object: "list", data: [{code, message, line}]}` at OpenAI, a list of strings at watsonx. */
function errorTexts(value: unknown): string[] | undefined {
  const list = isObject(value) ? value.data : value;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.map((e) => {
    if (typeof e === 'string') return e;
    if (!isObject(e)) return JSON.stringify(e);
    const where = typeof e.line === 'number' ? `line ${e.line}: ` : '';
    return `${where}${typeof e.message === 'string' ? e.message : JSON.stringify(e)}${typeof e.code === 'string' ? ` (${e.code})` : ''}`;
  });
}

export function parseBatchObject(body: unknown): ProviderBatch {
  if (!isObject(body)) throw new UnexpectedAnswer('the answer is not a batch object');
  const id = text(body.id);
  const status = text(body.status);
  if (id === undefined) throw new UnexpectedAnswer('the batch object has no "id"');
  if (status === undefined) throw new UnexpectedAnswer('the batch object has no "status"');
  const counts = isObject(body.request_counts) ? body.request_counts : {};
  const out: ProviderBatch = {
    id,
    status,
    request_counts: { total: count(counts.total), completed: count(counts.completed), failed: count(counts.failed) },
    raw: body,
  };
  const fields = ['endpoint', 'input_file_id', 'output_file_id', 'error_file_id'] as const;
  for (const key of fields) {
    const v = text(body[key]);
    if (v !== undefined) out[key] = v;
  }
  const times = ['created_at', 'expires_at', 'completed_at'] as const;
  for (const key of times) {
    const v = time(body[key]);
    if (v !== undefined) out[key] = v;
  }
  if (isObject(body.metadata)) {
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(body.metadata)) if (typeof v === 'string') metadata[k] = v;
    out.metadata = metadata;
  }
  const errors = errorTexts(body.errors);
  if (errors !== undefined) out.errors = errors;
  return out;
}

export function parseBatchPage(body: unknown): ProviderBatchPage {
  const data = isObject(body) ? body.data : Array.isArray(body) ? body : undefined;
  if (!Array.isArray(data)) throw new UnexpectedAnswer('the answer has no "data" list of batches');
  const batches = data.map(parseBatchObject);
  const page: ProviderBatchPage = { batches };
  const more = isObject(body) && body.has_more === true;
  const last = isObject(body) ? text(body.last_id) : undefined;
  if (more) {
    const next = last ?? batches.at(-1)?.id;
    if (next !== undefined) page.next = next;
  }
  return page;
}

export function parseFileObject(body: unknown): string {
  const id = isObject(body) ? text(body.id) : undefined;
  if (id === undefined) throw new UnexpectedAnswer('the file upload answer has no "id"');
  return id;
}

/** `multipart/form-data` with `purpose=batch` and the file (JSONL is UTF-8 text, so the body stays a string). */
export function multipartUpload(
  url: string,
  headers: Record<string, string>,
  filename: string,
  content: string,
): HttpRequestSpec {
  const boundary = `textgen-${randomBytes(12).toString('hex')}`;
  const safeName = filename.replace(/["\r\n\\]/g, '_');
  const body =
    `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\n` +
    `Content-Type: application/jsonl\r\n\r\n${content}\r\n--${boundary}--\r\n`;
  return {
    method: 'POST',
    url,
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, accept: 'application/json' },
    body,
  };
}

export function jsonPost(url: string, headers: Record<string, string>, body: unknown): HttpRequestSpec {
  return {
    method: 'POST',
    url,
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  };
}

export function get(url: string, headers: Record<string, string>, accept = 'application/json'): HttpRequestSpec {
  return { method: 'GET', url, headers: { ...headers, accept } };
}

/** The path (without query) of a URL an adapter built, for a line's `url`. */
export function pathOf(url: string): string {
  return new URL(url).pathname;
}
