import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import type {
  CanonicalRequest,
  GenerateResult,
  GenerateResultItem,
  ServiceWarning,
} from '../../../src/contract/canonical.js';
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
import type { CompletionsKind } from './request.js';
import { isRecord, numberField, stringField } from '../wire.js';
import { choiceProblem } from './choice.js';

/**
 * A `text_completion` answer → the canonical result, one result per choice in `index` order.
 *
 * Token counts: `usage.prompt_tokens` is the prompt's count, true of every choice. `usage.completion_tokens` is
 * the total over all choices (and over best_of candidates), so it is only one choice's count when there is one
 * choice. With token data back, each choice is counted exactly from its own tokens. With several choices and no
 * token data the total cannot be split honestly, so it goes on the first result and the others carry none.
 */
export function parseCompletionResponse(
  kind: CompletionsKind,
  body: unknown,
  request: CanonicalRequest,
): GenerateResult {
  if (!isRecord(body) || !Array.isArray(body.choices)) throw new UnexpectedAnswer('the answer has no "choices" array');
  if (body.choices.length === 0)
    throw new UnexpectedAnswer('the answer has an empty "choices" array (a completion has at least one choice)');
  body.choices.forEach((c, i) => {
    const problem = choiceProblem(c, i, true);
    if (problem !== undefined) throw new UnexpectedAnswer(problem);
  });
  const usage = isRecord(body.usage) ? body.usage : {};
  const promptTokens = numberField(usage, 'prompt_tokens');
  const completionTokens = numberField(usage, 'completion_tokens');
  const options = request.parameters?.return_options ?? {};
  const echo = echoLength(request);
  const warnings: ServiceWarning[] = requestWarnings(kind, request);

  const choices = body.choices.filter(isRecord);
  const ordered = choices
    .map((c, position) => ({ c, index: numberField(c, 'index') ?? position }))
    .sort((a, b) => a.index - b.index);

  const results = ordered.map(({ c, index }, position): GenerateResultItem => {
    const text = typeof c.text === 'string' ? c.text : '';
    const item: GenerateResultItem = {
      generated_text: text.slice(echo),
      stop_reason: stopReasonOf(c.finish_reason, request),
    };
    if (options.input_text) item.input_text = text.slice(0, echo);

    const data = readTokenData(c.logprobs);
    let generatedCount: number | undefined;
    if (data) {
      // Echoed prompt tokens come first: usage counts them exactly, token texts are the fallback.
      const promptCount = echo === 0 ? 0 : (promptTokens ?? tokensSpanning(data.tokens, echo).count);
      generatedCount = Math.max(0, data.tokens.length - promptCount);
      if (wantsTokens(options)) {
        item.generated_tokens = data.tokens.slice(promptCount).map((_, i) => tokenInfo(data, promptCount + i, options));
      }
    } else if (position === 0) {
      generatedCount = completionTokens;
    }
    if (generatedCount !== undefined) item.generated_token_count = generatedCount;
    if (promptTokens !== undefined) item.input_token_count = promptTokens;
    if (c.finish_reason === 'content_filter') warnings.push(contentFilterWarning(kind, index));
    return item;
  });

  const result: GenerateResult = { results };
  const model = stringField(body, 'model');
  if (model) result.model_id = model;
  const created = isoFromEpochSeconds(body.created);
  if (created) result.created_at = created;
  if (warnings.length > 0) result.system = { warnings };
  return result;
}
