import type { ApiErrorDetails } from '../../../src/contract/errors.js';
import type { CompletionsKind } from './request.js';
import { isRecord, stringField } from '../wire.js';
import { serverWords } from '../../common/error-words.js';

/** Content-filter categories that were filtered, e.g. "violence (medium)". */
function filteredCategories(results: unknown): string[] {
  if (!isRecord(results)) return [];
  return Object.entries(results)
    .filter(([, r]) => isRecord(r) && r.filtered === true)
    .map(([category, r]) => {
      const severity = stringField(r as Record<string, unknown>, 'severity');
      return severity ? `${category} (${severity})` : category;
    });
}

/** Azure's inner error, briefly: its code and which content-filter categories fired. */
function innerSummary(inner: Record<string, unknown>): string | undefined {
  const parts: string[] = [];
  const code = stringField(inner, 'code');
  if (code) parts.push(`inner error ${code}`);
  const filtered = filteredCategories(inner.content_filter_result ?? inner.content_filter_results);
  if (filtered.length > 0) parts.push(`filtered: ${filtered.join(', ')}`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * `{"error":{code,message,param,type,innererror|inner_error}}` → a code and one readable message. OpenAI-style
 * errors often have `code: null` and the useful word in `type` ("invalid_request_error"), so that stands in.
 */
export function describeWireError(error: unknown): { code?: string; message: string } {
  if (typeof error === 'string') return { message: error };
  if (!isRecord(error)) return { message: JSON.stringify(error) };
  const code =
    stringField(error, 'code') ??
    (typeof error.code === 'number' ? String(error.code) : undefined) ??
    stringField(error, 'type');
  let message = stringField(error, 'message') ?? JSON.stringify(error);
  const param = stringField(error, 'param');
  if (param && !message.includes(param)) message += ` (param ${param})`;
  const inner = isRecord(error.innererror)
    ? error.innererror
    : isRecord(error.inner_error)
      ? error.inner_error
      : undefined;
  const summary = inner ? innerSummary(inner) : undefined;
  if (summary) message += ` (${summary})`;
  return code ? { code, message } : { message };
}

/**
 * An error answer → the fields of ApiError. The trace id is `apim-request-id` (what Azure support asks for), then
 * `x-request-id` (OpenAI and most compatible servers). Handles API Management's own `{statusCode, message}`, and
 * shows the server's own words for anything else (a proxy's HTML page, a router's plain-text 404, FastAPI's
 * `{"detail": …}`).
 */
export function parseCompletionsError(
  kind: CompletionsKind,
  status: number,
  bodyText: string,
  headers: Record<string, string>,
): ApiErrorDetails {
  const label =
    headers['apim-request-id'] !== undefined
      ? 'apim-request-id'
      : headers['x-request-id'] !== undefined
        ? 'x-request-id'
        : 'x-ms-request-id';
  const traceId = headers[label];
  const base = { provider: kind, status, ...(traceId ? { traceId, traceLabel: label } : {}) };
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    body = undefined;
  }
  if (isRecord(body) && body.error !== undefined && body.error !== null)
    return { ...base, ...describeWireError(body.error) };
  if (isRecord(body) && typeof body.message === 'string') {
    const code = stringField(body, 'code');
    return { ...base, ...(code ? { code } : {}), message: body.message };
  }
  return { ...base, message: serverWords(bodyText, status) };
}
