import type { CanonicalRequest, GenerateResult, GenerateResultItem } from '../../../src/contract/canonical.js';
import type { SseEvent } from '../../../src/contract/http.js';
import type { StreamStep } from '../../../src/contract/adapter.js';
import { createShapeCachingParse, readJsonEvent } from '../../common/json-events.js';
import { errorOf, numberField, stopReasonOf, textOutput, tokenInfoOf, wantsTokens } from './answer-fields.js';
import { isRecord } from '../../../src/contract/wire-fields.js';

/**
 * `generate_stream` messages → canonical steps. Each message's `text_output` is the delta; the token is
 * `details.token` (the spec) or a top-level `token` (TGI, and the embedded server's messages before the last);
 * `details.finish_reason` gives the stop reason. Triton sends no end marker, so the stream simply ends with the
 * body; `data: [DONE]` is accepted anyway. `{"error": …}` inside the 200 stream is an error step. Keep-alive
 * comments never reach here (the SSE parser drops comments), and `data:{json}` without a space is the same event.
 *
 * Counts are cumulative: the tokens seen so far, or the server's own count when it sends one.
 */
const NO_TEXT = 'the event has no "text_output" string (nor a "token")';

export function createOpenInferenceStreamDecoder(request: CanonicalRequest): (event: SseEvent) => StreamStep {
  const keepTokens = wantsTokens(request);
  const createdAt = new Date().toISOString();
  // Triton's messages differ only in `text_output` (TGI's carry a changing token: those parse in full).
  const parse = createShapeCachingParse(['text_output']);
  let tokens = 0;
  let text = '';

  return (event) => {
    const step = readJsonEvent(event, errorOf, parse);
    if (step.type !== 'json') return step;
    const body = step.body;

    if (!isRecord(body)) return { type: 'ignore', unexpected: NO_TEXT };

    const details = isRecord(body.details) ? body.details : undefined;
    const token = isRecord(details?.token) ? details.token : isRecord(body.token) ? body.token : undefined;
    let delta = textOutput(body);
    if (delta === undefined) {
      if (token === undefined) return { type: 'ignore', unexpected: NO_TEXT };
      // TGI's own stream has no text_output: the token text is the delta, special tokens (EOS) excepted.
      delta = token.special !== true && typeof token.text === 'string' ? token.text : '';
    }
    text += delta;
    if (token !== undefined) tokens++;

    const item: GenerateResultItem = {
      generated_text: delta,
      stop_reason: stopReasonOf(details?.finish_reason, text, request) ?? 'not_finished',
    };
    const count =
      numberField(body, 'num_output_tokens') ??
      numberField(details, 'generated_tokens') ??
      (token !== undefined ? tokens : undefined);
    if (count !== undefined) item.generated_token_count = count;
    const inputCount = numberField(body, 'num_input_tokens');
    if (inputCount !== undefined) item.input_token_count = inputCount;
    const seed = numberField(details, 'seed');
    if (seed !== undefined) item.seed = seed;
    if (token !== undefined && keepTokens)
      item.generated_tokens = [tokenInfoOf(token, request, details?.top_tokens ?? body.top_tokens)];
    if (isRecord(details?.moderations)) item.moderations = details.moderations;

    const chunk: GenerateResult = { created_at: createdAt, results: [item] };
    if (typeof body.model_name === 'string') chunk.model_id = body.model_name;
    if (typeof body.model_version === 'string') chunk.model_version = body.model_version;
    return { type: 'chunk', chunk, wireBody: body };
  };
}
