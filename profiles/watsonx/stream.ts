import type { GenerateResult } from '../../src/canonical.js';
import type { SseEvent } from '../../src/http/sse-parser.js';
import type { StreamStep } from '../types.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function errorFromBody(body: unknown): { message: string; code?: string } | undefined {
  if (!isRecord(body)) return undefined;
  if (Array.isArray(body.errors) && body.errors.length > 0) {
    const first = body.errors.find(isRecord) ?? {};
    const message = body.errors
      .map((e) => (isRecord(e) && typeof e.message === 'string' ? e.message : JSON.stringify(e)))
      .join('; ');
    const trace = typeof body.trace === 'string' ? ` (trace ${body.trace})` : '';
    return { message: message + trace, ...(typeof first.code === 'string' ? { code: first.code } : {}) };
  }
  if (body.error !== undefined) {
    const e = body.error;
    if (typeof e === 'string') return { message: e };
    if (isRecord(e) && typeof e.message === 'string') return { message: e.message, ...(typeof e.code === 'string' ? { code: e.code } : {}) };
    return { message: JSON.stringify(e) };
  }
  return undefined;
}

/**
 * watsonx `generation_stream` events → canonical steps. Tolerates the variants seen in the wild
 * (specs/watsonx.md): `event: close`, a leading or trailing `data: {}`, `data: [DONE]`, and errors
 * either as `event: error` (body possibly not JSON) or as a payload with a top-level `errors` array.
 */
export function createWatsonxStreamDecoder(): (event: SseEvent) => StreamStep {
  return (event) => {
    const data = event.data.trim();
    if (event.event === 'close') return { type: 'end' };
    if (event.event === 'error') {
      let body: unknown = data;
      try {
        body = JSON.parse(data);
      } catch {
        // Not JSON: the text itself is the message.
      }
      const parsed = errorFromBody(body);
      return { type: 'error', message: parsed?.message ?? (data || 'the service reported an error'), ...(parsed?.code ? { code: parsed.code } : {}), raw: body };
    }
    if (data === '[DONE]') return { type: 'end' };
    if (data === '' || data === '{}') return { type: 'ignore' };
    let body: unknown;
    try {
      body = JSON.parse(data);
    } catch {
      const excerpt = data.length > 80 ? `${data.slice(0, 80)}…` : data;
      return { type: 'error', message: `malformed event from the service (not JSON): ${excerpt}`, code: 'malformed_event', raw: data };
    }
    const failure = errorFromBody(body);
    if (failure) return { type: 'error', ...failure, raw: body };
    if (!isRecord(body) || !Array.isArray(body.results)) return { type: 'ignore' };
    const chunk = body as unknown as GenerateResult;
    for (const item of chunk.results) {
      if (typeof item.generated_text !== 'string') item.generated_text = '';
      if (typeof item.stop_reason !== 'string') item.stop_reason = 'not_finished';
    }
    return { type: 'chunk', chunk, raw: body };
  };
}
