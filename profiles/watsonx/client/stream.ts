import type { GenerateResult } from '../../../src/contract/canonical.js';
import type { SseEvent } from '../../../src/contract/http.js';
import type { StreamStep } from '../../../src/contract/adapter.js';
import { readJsonEvent } from '../../common/json-events.js';
import { isRecord } from '../../../src/contract/wire-fields.js';

export function errorFromBody(body: unknown): { message: string; code?: string } | undefined {
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
    if (isRecord(e) && typeof e.message === 'string')
      return { message: e.message, ...(typeof e.code === 'string' ? { code: e.code } : {}) };
    return { message: JSON.stringify(e) };
  }
  return undefined;
}

/**
 * watsonx `generation_stream` events → canonical steps. Tolerates the variants seen in the wild
 * (docs/protocols/watsonx.md): `event: close`, a leading or trailing `data: {}`, `data: [DONE]`, and errors
 * either as `event: error` (body possibly not JSON) or as a payload with a top-level `errors` array.
 */
export function createWatsonxStreamDecoder(): (event: SseEvent) => StreamStep {
  return (event) => {
    const step = readJsonEvent(event, errorFromBody);
    if (step.type !== 'json') return step;
    const body = step.body;
    if (!isRecord(body) || !Array.isArray(body.results))
      return { type: 'ignore', unexpected: 'the event has no "results" array' };
    const chunk = body as unknown as GenerateResult;
    for (const item of chunk.results) {
      if (typeof item.generated_text !== 'string') item.generated_text = '';
      if (typeof item.stop_reason !== 'string') item.stop_reason = 'not_finished';
    }
    return { type: 'chunk', chunk, wireBody: body };
  };
}
