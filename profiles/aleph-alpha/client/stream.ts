import type { GenerateTarget } from '../../../src/contract/adapter.js';
import type {
  CanonicalRequest,
  GenerateResult,
  GenerateResultItem,
  ServiceWarning,
} from '../../../src/contract/canonical.js';
import type { SseEvent } from '../../../src/contract/http.js';
import type { StreamStep } from '../../../src/contract/adapter.js';
import { canonicalStopReason, requestedStops, stopSequenceFix } from './finish-reason.js';
import { modelOf } from './request-model.js';
import { createShapeCachingParse, readJsonEvent } from '../../common/json-events.js';
import { parseAlephAlphaGenerateResponse } from './response.js';
import { isRecord } from '../../../src/contract/wire-fields.js';
import { StreamEcho, type EchoSplit } from './stream-echo.js';
import { tokenInfos } from './token-data.js';

/**
 * The in-stream error: `data: {"error":"…","code":"…"}` as the embedded server sends it, and the variants docs/design.md §4
 * lists (`event: error`, `{"errors":[…]}`, `{"type":"error"}`, an error object).
 */
function errorFrom(body: unknown): { message: string; code?: string } | undefined {
  if (!isRecord(body)) return undefined;
  const code = typeof body.code === 'string' ? { code: body.code } : {};
  if (typeof body.error === 'string') return { message: body.error, ...code };
  if (isRecord(body.error)) {
    const e = body.error;
    return {
      message: typeof e.message === 'string' ? e.message : JSON.stringify(e),
      ...(typeof e.code === 'string' ? { code: e.code } : code),
    };
  }
  if (Array.isArray(body.errors) && body.errors.length > 0) {
    const first = body.errors.find(isRecord) ?? {};
    const message = body.errors
      .map((e) => (isRecord(e) && typeof e.message === 'string' ? e.message : JSON.stringify(e)))
      .join('; ');
    return { message, ...(typeof first.code === 'string' ? { code: first.code } : {}) };
  }
  if (body.type === 'error')
    return { message: typeof body.message === 'string' ? body.message : 'the service reported an error', ...code };
  return undefined;
}

function indexOf(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
}

function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

interface CompletionState {
  echo: StreamEcho;
  /** Generated text released so far, for the stop reason and include_stop_sequence. */
  text: string;
}

/**
 * AA stream events (API 1.19+: data-only SSE, the JSON `type` says what it is) → canonical steps.
 * `stream_chunk` → a delta for its `index` (the chunk's `results` are padded with empty items up to it);
 * `stream_summary` → that completion's stop reason; `completion_summary` → the token counts, on the first result
 * as in the non-streamed answer; `[DONE]` → end; error payloads → error. A whole CompletionResponse sent as one
 * event (a server that ignored `stream`) becomes one chunk.
 */
export function createAlephAlphaStreamDecoder(
  request?: CanonicalRequest,
  target?: GenerateTarget,
): (event: SseEvent) => StreamStep {
  const ro = request?.parameters?.return_options ?? {};
  const echo = ro.input_text ? (request?.input ?? '') : undefined;
  const topN = ro.top_n_tokens ?? 0;
  const stops = requestedStops(request);
  const model = modelOf(target);
  const createdAt = new Date().toISOString();
  // stream_chunk events differ only in `completion` (without token data): parse just that, most times.
  const parse = createShapeCachingParse(['completion']);
  const states: CompletionState[] = [];
  let modelVersion: string | undefined;

  const state = (i: number): CompletionState => (states[i] ??= { echo: new StreamEcho(echo), text: '' });

  function chunk(index: number, item: GenerateResultItem, warnings: ServiceWarning[] = []): GenerateResult {
    const results: GenerateResultItem[] = [];
    for (let i = 0; i < index; i++) results.push({ generated_text: '', stop_reason: 'not_finished' });
    results.push(item);
    const out: GenerateResult = { created_at: createdAt, results };
    if (model !== undefined) out.model_id = model;
    if (modelVersion !== undefined) out.model_version = modelVersion;
    if (warnings.length > 0) out.system = { warnings };
    return out;
  }

  function released(st: CompletionState, split: EchoSplit): GenerateResultItem {
    st.text += split.text;
    const item: GenerateResultItem = { generated_text: split.text, stop_reason: 'not_finished' };
    if (split.echoed !== undefined) item.input_text = split.echoed;
    const tokens = tokenInfos(split.completionTokens, split.logProbs, topN, split.skipChars);
    if (tokens !== undefined && tokens.length > 0) item.generated_tokens = tokens;
    return item;
  }

  function summary(index: number, finishReason: unknown, wireBody: unknown): StreamStep {
    const st = state(index);
    const item = released(st, st.echo.push('', undefined, undefined, true)!);
    item.stop_reason = canonicalStopReason(finishReason, st.text, stops);
    const warnings: ServiceWarning[] = [];
    if (item.stop_reason === 'stop_sequence') {
      const fix = stopSequenceFix(st.text, finishReason, request, index);
      if (fix.warning) warnings.push(fix.warning);
      if (fix.append) {
        item.generated_text += fix.append;
        st.text += fix.append;
      }
      if (fix.cut > 0) {
        warnings.push({
          id: 'include_stop_sequence',
          message: `the stop sequence that ended completion ${index} had already been streamed; it stays in the text`,
        });
      }
    }
    return { type: 'chunk', chunk: chunk(index, item, warnings), wireBody };
  }

  return (event) => {
    const step = readJsonEvent(event, errorFrom, parse);
    if (step.type !== 'json') return step;
    const body = step.body;
    if (!isRecord(body)) return { type: 'ignore', unexpected: UNKNOWN_EVENT };
    if (typeof body.model_version === 'string') modelVersion ??= body.model_version;
    // Some proxies name the event instead of (or as well as) typing the payload.
    const type = typeof body.type === 'string' ? body.type : event.event;
    switch (type) {
      case 'stream_chunk': {
        const index = indexOf(body.index);
        const st = state(index);
        const split = st.echo.push(
          typeof body.completion === 'string' ? body.completion : '',
          body.completion_tokens,
          body.log_probs,
          false,
        );
        // Held-back echo still goes out as an empty chunk, so --raw shows every event the service sent.
        const item = split === undefined ? { generated_text: '', stop_reason: 'not_finished' } : released(st, split);
        return { type: 'chunk', chunk: chunk(index, item), wireBody: body };
      }
      case 'stream_summary':
        return summary(indexOf(body.index), body.finish_reason, body);
      case 'completion_summary': {
        const item: GenerateResultItem = { generated_text: '', stop_reason: 'not_finished' };
        const generated = count(body.num_tokens_generated);
        const input = count(body.num_tokens_prompt_total);
        if (generated !== undefined) item.generated_token_count = generated;
        if (input !== undefined) item.input_token_count = input;
        return { type: 'chunk', chunk: chunk(0, item), wireBody: body };
      }
    }
    if (Array.isArray(body.completions)) {
      try {
        return { type: 'chunk', chunk: parseAlephAlphaGenerateResponse(body, request), wireBody: body };
      } catch (e) {
        return {
          type: 'error',
          message: `unexpected event from the service: ${(e as Error).message}`,
          code: 'malformed_event',
          wireBody: body,
        };
      }
    }
    return { type: 'ignore', unexpected: UNKNOWN_EVENT };
  };
}

const UNKNOWN_EVENT = 'the event has no "type" of stream_chunk, stream_summary or completion_summary';
