/** Engine results in the generate extension's shapes: GenerateResponse and GenerateStreamResponse messages. */
import type { StopReason } from '../../../src/contract/canonical.js';
import type {
  EngineToken,
  Generation,
  GenerationStep,
  GenerationSummary,
  Tokenizer,
} from '../../../src/emulator/engine/index.js';
import type { OipGenerateRequest } from './validate.js';

export interface WireToken {
  id: number;
  text: string;
  logprob: number;
  special: boolean;
  rank?: number;
}

export type FinishReason = 'length' | 'eos_token' | 'stop_sequence';

/** GenerateResponse, with the extras of TGI (`generated_tokens`, `seed`, `top_tokens`) and vLLM (`num_*_tokens`). */
export interface OipGenerateResponse {
  text_output: string;
  model_name: string;
  model_version: string;
  details?: {
    finish_reason: FinishReason;
    logprobs: WireToken[];
    generated_tokens: number;
    seed?: number;
    top_tokens?: WireToken[][];
    moderations?: Record<string, unknown>;
  };
  num_input_tokens?: number;
  num_output_tokens?: number;
}

/** GenerateStreamResponse: `token`/`top_tokens` at the top level (TGI), `details` on the last message only. */
export interface OipStreamMessage {
  text_output: string;
  model_name: string;
  model_version: string;
  token?: WireToken;
  top_tokens?: WireToken[];
  details?: {
    finish_reason: FinishReason;
    token: WireToken;
    generated_tokens: number;
    seed?: number;
    moderations?: Record<string, unknown>;
  };
  num_input_tokens?: number;
  num_output_tokens?: number;
}

export interface ResponseMeta {
  modelName: string;
  modelVersion: string;
  request: OipGenerateRequest;
  /** For the ids of top tokens, which the engine keeps as text only. */
  tokenizer: Tokenizer;
}

/**
 * The spec knows three finish reasons. `token_limit` cannot happen (the route rejects prompts that would not fit);
 * `cancelled` only when the client has gone, so nobody reads it: both count as running out of room.
 */
export function finishReasonOf(stop: StopReason): FinishReason {
  if (stop === 'eos_token') return 'eos_token';
  if (stop === 'stop_sequence') return 'stop_sequence';
  return 'length';
}

function wireToken(token: EngineToken, meta: ResponseMeta): WireToken {
  // Generated tokens always have a logprob; only the first prompt token lacks one.
  const out: WireToken = { id: token.id, text: token.text, logprob: token.logprob ?? 0, special: false };
  if (meta.request.tokenRanks && token.rank !== undefined) out.rank = token.rank;
  return out;
}

function topTokens(token: EngineToken, meta: ResponseMeta): WireToken[] {
  return (token.topTokens ?? [])
    .slice(0, meta.request.topNTokens)
    .map((t) => ({ id: meta.tokenizer.encode(t.text)[0] ?? 0, text: t.text, logprob: t.logprob, special: false }));
}

/** The answer of `generate`. `details` only when asked for, as real servers do. */
export function generateResponse(summary: GenerationSummary, meta: ResponseMeta): OipGenerateResponse {
  const { request } = meta;
  const text = request.excludeInput ? summary.generatedText : request.textInput + summary.generatedText;
  const body: OipGenerateResponse = { text_output: text, model_name: meta.modelName, model_version: meta.modelVersion };
  if (request.details) {
    const details: NonNullable<OipGenerateResponse['details']> = {
      finish_reason: finishReasonOf(summary.stopReason),
      logprobs: summary.generatedTokens.map((t) => wireToken(t, meta)),
      generated_tokens: summary.generatedTokenCount,
    };
    if (summary.seed !== undefined) details.seed = summary.seed;
    if (request.topNTokens > 0) details.top_tokens = summary.generatedTokens.map((t) => topTokens(t, meta));
    if (summary.moderations) details.moderations = { ...summary.moderations };
    body.details = details;
  }
  if (request.returnNumInputTokens) body.num_input_tokens = summary.inputTokenCount;
  if (request.returnNumOutputTokens) body.num_output_tokens = summary.generatedTokenCount;
  return body;
}

/**
 * One `generate_stream` message per engine step. With `details`, every message carries its token at the top level
 * (as TGI does) and the last one also carries `details: {finish_reason, token, …}`: the document's StreamDetails
 * requires a finish reason, so a message before the last cannot have `details` and still be valid.
 */
export function streamMessage(step: GenerationStep, generation: Generation, meta: ResponseMeta): OipStreamMessage {
  const { request } = meta;
  const body: OipStreamMessage = {
    text_output: step.text,
    model_name: meta.modelName,
    model_version: meta.modelVersion,
  };
  const token = step.token !== undefined && request.details ? wireToken(step.token, meta) : undefined;
  if (step.token !== undefined && token !== undefined) {
    body.token = token;
    if (request.topNTokens > 0) body.top_tokens = topTokens(step.token, meta);
  }
  if (step.stopReason !== undefined && token !== undefined) {
    const summary = generation.summary();
    const details: NonNullable<OipStreamMessage['details']> = {
      finish_reason: finishReasonOf(step.stopReason),
      token,
      generated_tokens: step.generatedTokenCount,
    };
    if (summary.seed !== undefined) details.seed = summary.seed;
    if (summary.moderations) details.moderations = { ...summary.moderations };
    body.details = details;
  }
  if (request.returnNumInputTokens) body.num_input_tokens = generation.inputTokenCount;
  if (request.returnNumOutputTokens) body.num_output_tokens = step.generatedTokenCount;
  return body;
}
