import type {
  CanonicalRequest,
  GenerateResult,
  GenerateResultItem,
  ServiceWarning,
} from '../../../src/contract/canonical.js';
import type { SseEvent } from '../../../src/contract/http.js';
import type { StreamStep } from '../../../src/contract/adapter.js';
import { createShapeCachingParse, readJsonEvent } from '../../common/json-events.js';
import {
  choiceProblem,
  contentFilterWarning,
  echoLength,
  isoFromEpochSeconds,
  readTokenData,
  requestWarnings,
  stopReasonOf,
  tokenInfo,
  tokensSpanning,
  wantsTokens,
} from './choice.js';
import { describeWireError } from './errors.js';
import type { CompletionsKind } from './request.js';
import { numberField, stringField } from '../wire.js';
import { isRecord } from '../../../src/contract/wire-fields.js';

interface ChoiceState {
  /** Characters of the echoed prompt still to come in this choice's text. */
  echoLeft: number;
  echoed: string;
  echoReported: boolean;
  /** Characters of the echoed prompt still to come in this choice's token data. */
  echoTokenChars: number;
  /** Generated tokens seen so far (from token data); reported cumulatively. */
  count: number;
}

function emptyItem(): GenerateResultItem {
  return { generated_text: '', stop_reason: 'not_finished' };
}

/** `{"error": …}` (or an `event: error` body) in the wire's words. */
function wireErrorOf(body: unknown): { message: string; code?: string } | undefined {
  if (isRecord(body) && body.error !== undefined && body.error !== null) return describeWireError(body.error);
  return undefined;
}

/**
 * Completions stream events → canonical steps. Data-only SSE: each message is a `text_completion` whose
 * `choices[i].text` is the delta of choice `index`; `data: [DONE]` ends it. Tolerated: `"choices": []` messages
 * (Azure's content-filter annotations; ignored, unless they carry the `usage` some servers send last), choices
 * without text, a `{"error":…}` payload inside the 200 stream and an `event: error` (both: error step).
 *
 * With echo the prompt comes first in each choice's text: it is moved to `input_text` (reported once, complete),
 * and its tokens are not counted. Token counts exist only when token data comes back (one entry per token); they
 * are cumulative per choice, so the aggregator's maximum is the count.
 */
export function createCompletionsStreamDecoder(
  kind: CompletionsKind,
  request: CanonicalRequest,
): (event: SseEvent) => StreamStep {
  const options = request.parameters?.return_options ?? {};
  const promptLength = echoLength(request);
  const states = new Map<number, ChoiceState>();
  const initial = requestWarnings(kind, request);
  let owedWarnings: ServiceWarning[] | undefined = initial.length > 0 ? initial : undefined;
  // Every event of a stream carries the same `created`: its ISO form is worked out once, not once per token.
  let createdValue: unknown;
  let createdIso: string | undefined;
  // Events differ only in the token's text (until the last, with its finish reason): parse just that, most times.
  const parse = createShapeCachingParse(['choices', 0, 'text']);

  const stateOf = (index: number): ChoiceState => {
    let s = states.get(index);
    if (!s) {
      s = { echoLeft: promptLength, echoed: '', echoReported: false, echoTokenChars: promptLength, count: 0 };
      states.set(index, s);
    }
    return s;
  };

  const delta = (c: Record<string, unknown>, index: number): GenerateResultItem => {
    const s = stateOf(index);
    let text = typeof c.text === 'string' ? c.text : '';
    const item: GenerateResultItem = { generated_text: '', stop_reason: stopReasonOf(c.finish_reason, request) };
    if (s.echoLeft > 0) {
      const take = Math.min(s.echoLeft, text.length);
      s.echoed += text.slice(0, take);
      s.echoLeft -= take;
      text = text.slice(take);
    }
    if (options.input_text && !s.echoReported && s.echoLeft === 0) {
      item.input_text = s.echoed;
      s.echoReported = true;
    }
    item.generated_text = text;

    // Most streams carry no token data (`logprobs: null`): skip the reader for them.
    const data = c.logprobs === null || c.logprobs === undefined ? undefined : readTokenData(c.logprobs);
    if (data) {
      let skip = 0;
      if (s.echoTokenChars > 0) {
        const span = tokensSpanning(data.tokens, s.echoTokenChars);
        skip = span.count;
        s.echoTokenChars = span.rest;
      }
      const fresh = data.tokens.length - skip;
      if (fresh > 0) {
        s.count += fresh;
        item.generated_token_count = s.count;
        if (wantsTokens(options))
          item.generated_tokens = data.tokens.slice(skip).map((_, i) => tokenInfo(data, skip + i, options));
      }
    }
    return item;
  };

  return (event) => {
    const step = readJsonEvent(event, wireErrorOf, parse);
    if (step.type !== 'json') return step;
    const body = step.body;
    if (!isRecord(body) || !Array.isArray(body.choices))
      return { type: 'ignore', unexpected: 'the event has no "choices" array' };
    const wireChoices: unknown[] = body.choices;
    for (let i = 0; i < wireChoices.length; i++) {
      const problem = choiceProblem(wireChoices[i], i, false);
      if (problem !== undefined) return { type: 'ignore', unexpected: problem };
    }
    const usage = isRecord(body.usage) ? body.usage : undefined;

    // One pass over the choices, without the intermediate arrays of filter/forEach: this runs once per token.
    let warnings = owedWarnings;
    const results: GenerateResultItem[] = [];
    let position = 0;
    for (const c of wireChoices) {
      if (!isRecord(c)) continue;
      const index = numberField(c, 'index') ?? position;
      results[index] = delta(c, index);
      if (c.finish_reason === 'content_filter') (warnings ??= []).push(contentFilterWarning(kind, index));
      position += 1;
    }
    if (position === 0 && !usage) return { type: 'ignore' };
    owedWarnings = undefined;
    if (usage) {
      // A last usage message (stream_options.include_usage): totals, which go on the first result.
      const first = (results[0] ??= emptyItem());
      const prompt = numberField(usage, 'prompt_tokens');
      const completion = numberField(usage, 'completion_tokens');
      if (prompt !== undefined) first.input_token_count = prompt;
      if (completion !== undefined)
        first.generated_token_count = Math.max(completion, first.generated_token_count ?? 0);
    }
    for (let i = 0; i < results.length; i++) results[i] ??= emptyItem();

    const chunk: GenerateResult = { results };
    const model = stringField(body, 'model');
    if (model) chunk.model_id = model;
    if (body.created !== createdValue) {
      createdValue = body.created;
      createdIso = isoFromEpochSeconds(body.created);
    }
    if (createdIso) chunk.created_at = createdIso;
    if (warnings !== undefined && warnings.length > 0) chunk.system = { warnings };
    return { type: 'chunk', chunk, wireBody: body };
  };
}
