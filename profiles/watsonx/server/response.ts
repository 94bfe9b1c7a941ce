/** Engine results in watsonx's `TextGenResponse` shape, whole or as stream events. */
import type {
  GenerateResult,
  GenerateResultItem,
  ReturnOptions,
  ServiceWarning,
  TokenInfo,
} from '../../../src/contract/canonical.js';
import type { EngineToken, Generation, GenerationStep, GenerationSummary } from '../../../src/emulator/engine/index.js';
import { answerIso } from '../../../src/emulator/core/answer-clock.js';

export interface ResponseMeta {
  modelId: string;
  returnOptions: ReturnOptions | undefined;
  warnings: WatsonxWarning[];
}

export interface WatsonxWarning extends ServiceWarning {
  additional_properties?: Record<string, unknown>;
}

const MODEL_VERSION = '1.0.0';

/** What watsonx says when the client left max_new_tokens to the default. */
export function unspecifiedMaxTokenWarning(defaultValue: number): WatsonxWarning {
  return {
    id: 'unspecified_max_token',
    message: `The value of 'max_new_tokens' for this model was set to value ${defaultValue}`,
    additional_properties: { limit: 0, new_value: defaultValue, parameter: 'max_new_tokens', value: 0 },
  };
}

function envelope(meta: ResponseMeta, item: GenerateResultItem, withWarnings: boolean): GenerateResult {
  const result: GenerateResult = {
    model_id: meta.modelId,
    model_version: MODEL_VERSION,
    created_at: answerIso(),
    results: [item],
  };
  if (withWarnings && meta.warnings.length > 0) result.system = { warnings: meta.warnings };
  return result;
}

function tokenInfo(token: EngineToken, options: ReturnOptions): TokenInfo {
  const info: TokenInfo = { text: token.text };
  if (options.token_logprobs && token.logprob !== undefined) info.logprob = token.logprob;
  if (options.token_ranks && token.rank !== undefined) info.rank = token.rank;
  const top = options.top_n_tokens ?? 0;
  if (top > 0 && token.topTokens)
    info.top_tokens = token.topTokens.slice(0, top).map((t) => ({ text: t.text, logprob: t.logprob }));
  return info;
}

/** The non-streamed answer. */
export function textGenResponse(summary: GenerationSummary, meta: ResponseMeta): GenerateResult {
  const options = meta.returnOptions ?? {};
  const item: GenerateResultItem = {
    generated_text: summary.generatedText,
    generated_token_count: summary.generatedTokenCount,
    input_token_count: summary.inputTokenCount,
    stop_reason: summary.stopReason,
  };
  if (options.input_text) item.input_text = summary.inputText;
  if (summary.seed !== undefined) item.seed = summary.seed;
  if (options.generated_tokens) item.generated_tokens = summary.generatedTokens.map((t) => tokenInfo(t, options));
  if (options.input_tokens) item.input_tokens = summary.inputTokens.map((t) => tokenInfo(t, options));
  if (summary.moderations) item.moderations = { ...summary.moderations };
  return envelope(meta, item, true);
}

/** The first stream event: no text yet; the input token count, input data and warnings. */
export function firstStreamEvent(generation: Generation, meta: ResponseMeta): GenerateResult {
  const options = meta.returnOptions ?? {};
  const item: GenerateResultItem = {
    generated_text: '',
    generated_token_count: 0,
    input_token_count: generation.inputTokenCount,
    stop_reason: 'not_finished',
  };
  if (options.input_text) item.input_text = generation.inputText;
  if (options.input_tokens) item.input_tokens = generation.inputTokens.map((t) => tokenInfo(t, options));
  return envelope(meta, item, true);
}

/** One event per engine step; the last carries the stop reason, the seed and the moderations. */
export function stepStreamEvent(step: GenerationStep, generation: Generation, meta: ResponseMeta): GenerateResult {
  const options = meta.returnOptions ?? {};
  const item: GenerateResultItem = {
    generated_text: step.text,
    generated_token_count: step.generatedTokenCount,
    // Every event carries the input count, so accounting adds up whichever event a client reads it from.
    input_token_count: generation.inputTokenCount,
    stop_reason: step.stopReason ?? 'not_finished',
  };
  if (options.generated_tokens && step.token) item.generated_tokens = [tokenInfo(step.token, options)];
  if (step.stopReason !== undefined) {
    const summary = generation.summary();
    if (summary.seed !== undefined) item.seed = summary.seed;
    if (summary.moderations) item.moderations = { ...summary.moderations };
  }
  return envelope(meta, item, false);
}
