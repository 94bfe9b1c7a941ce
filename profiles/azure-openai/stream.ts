import type { CanonicalRequest, GenerateResult, GenerateResultItem, ServiceWarning } from '../../src/canonical.js';
import type { SseEvent } from '../../src/http/sse-parser.js';
import type { StreamStep } from '../types.js';
import { readJsonEvent } from '../json-events.js';
import {
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
import { isRecord, numberField, stringField } from './wire.js';

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
export function createCompletionsStreamDecoder(kind: CompletionsKind, request: CanonicalRequest): (event: SseEvent) => StreamStep {
  const options = request.parameters?.return_options ?? {};
  const promptLength = echoLength(request);
  const states = new Map<number, ChoiceState>();
  let owedWarnings: ServiceWarning[] = requestWarnings(kind, request);

  const stateOf = (index: number): ChoiceState => {
    let s = states.get(index);
    if (!s) {
      s = { echoLeft: promptLength, echoed: '', echoReported: false, echoTokenChars: promptLength, count: 0 };
      states.set(index, s);
    }
    return s;
  };

  const delta = (c: Record<string, unknown>, index: number, warnings: ServiceWarning[]): GenerateResultItem => {
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

    const data = readTokenData(c.logprobs);
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
        if (wantsTokens(options)) item.generated_tokens = data.tokens.slice(skip).map((_, i) => tokenInfo(data, skip + i, options));
      }
    }
    if (c.finish_reason === 'content_filter') warnings.push(contentFilterWarning(kind, index));
    return item;
  };

  return (event) => {
    const step = readJsonEvent(event, wireErrorOf);
    if (step.type !== 'json') return step;
    const body = step.body;
    if (!isRecord(body) || !Array.isArray(body.choices)) return { type: 'ignore' };
    const choices = body.choices.filter(isRecord);
    const usage = isRecord(body.usage) ? body.usage : undefined;
    if (choices.length === 0 && !usage) return { type: 'ignore' };

    const warnings = owedWarnings;
    owedWarnings = [];
    const results: GenerateResultItem[] = [];
    choices.forEach((c, position) => {
      const index = numberField(c, 'index') ?? position;
      results[index] = delta(c, index, warnings);
    });
    if (usage) {
      // A last usage message (stream_options.include_usage): totals, which go on the first result.
      const first = (results[0] ??= emptyItem());
      const prompt = numberField(usage, 'prompt_tokens');
      const completion = numberField(usage, 'completion_tokens');
      if (prompt !== undefined) first.input_token_count = prompt;
      if (completion !== undefined) first.generated_token_count = Math.max(completion, first.generated_token_count ?? 0);
    }
    for (let i = 0; i < results.length; i++) results[i] ??= emptyItem();

    const chunk: GenerateResult = { results };
    const model = stringField(body, 'model');
    if (model) chunk.model_id = model;
    const created = isoFromEpochSeconds(body.created);
    if (created) chunk.created_at = created;
    if (warnings.length > 0) chunk.system = { warnings };
    return { type: 'chunk', chunk, raw: body };
  };
}
