/**
 * The OpenAI-shaped chat completions wire, which four adapters share (docs/protocols/chat.md): OpenAI and the
 * servers compatible with it, Azure OpenAI, Aleph Alpha's `/chat/completions`, and — but for its model field,
 * scope and error shape — watsonx's `/ml/v1/text/chat`. Body fields from the canonical parameters, a whole answer
 * read into the canonical result, and a stream decoder for `chat.completion.chunk` events.
 */
import type {
  ChatChoice,
  ChatChunk,
  ChatChunkChoice,
  ChatParameters,
  ChatRequest,
  ChatResult,
  ChatTokenLogprob,
  ChatUsage,
  FinishReason,
} from '../../src/contract/chat.js';
import type { ServiceWarning } from '../../src/contract/canonical.js';
import { UnexpectedAnswer } from '../../src/contract/errors.js';
import type { SseEvent } from '../../src/contract/http.js';
import type { ChatFeature, ChatFeatureSupport, ChatStreamStep } from '../../src/contract/adapter-operations/chat.js';
import { readJsonEvent, type ErrorReader } from './json-events.js';
import {
  readToolCallDeltas,
  readToolCalls,
  responseFormatField,
  type ToolChoiceDialect,
  toolChoiceFields,
  wireMessage,
} from './chat-tool-fields.js';
import { isRecord } from '../../src/contract/wire-fields.js';

function num(record: Record<string, unknown>, key: string): number | undefined {
  const v = record[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function str(record: Record<string, unknown>, key: string): string | undefined {
  const v = record[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The wire names of the canonical parameters are the same in every chat API: they are copied as they are. */
const PARAMETER_ORDER: readonly (keyof ChatParameters)[] = [
  'max_tokens',
  'temperature',
  'top_p',
  'stop',
  'seed',
  'n',
  'logprobs',
  'top_logprobs',
  'frequency_penalty',
  'presence_penalty',
  'time_limit',
];

/**
 * `messages`, the parameters in a stable order (`top_logprobs` brings `logprobs: true` with it, as the APIs
 * require), then tools, the tool choice in the dialect's field, `parallel_tool_calls` and `response_format`.
 */
export function chatCompletionsFields(
  request: ChatRequest,
  dialect: ToolChoiceDialect = 'openai',
): Record<string, unknown> {
  const body: Record<string, unknown> = { messages: request.messages.map(wireMessage) };
  const p: ChatParameters =
    request.parameters.top_logprobs !== undefined ? { ...request.parameters, logprobs: true } : request.parameters;
  for (const key of PARAMETER_ORDER) {
    const value = p[key];
    if (value === undefined) continue;
    body[key] = Array.isArray(value) ? [...value] : value;
  }
  if (request.tools !== undefined && request.tools.length > 0) {
    // watsonx's `TextChatParameterFunction` is {name, description, parameters}: no `strict`.
    body.tools = request.tools.map((t) => {
      const { strict, ...fn } = t.function;
      return { type: 'function', function: dialect === 'watsonx' || strict === undefined ? fn : { ...fn, strict } };
    });
  }
  Object.assign(body, toolChoiceFields(request, dialect));
  if (request.parallel_tool_calls !== undefined) body.parallel_tool_calls = request.parallel_tool_calls;
  if (request.response_format !== undefined) body.response_format = responseFormatField(request);
  return body;
}

let lastEpoch: number | undefined;
let lastIso = '';

/** Seconds since the epoch (`created`) as ISO 8601, or undefined when it is not a time. */
export function isoFromEpoch(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  // Every event of a stream, and thousands of a batch's answers, carry the same second: format each second once
  // (toISOString was a twentieth of a gateway's CPU per streamed event).
  if (value !== lastEpoch) {
    lastIso = new Date(value * 1000).toISOString();
    lastEpoch = value;
  }
  return lastIso;
}

/** `logprobs: {content: [{token, logprob, top_logprobs: [{token, logprob}]}]}` → canonical token entries. */
export function readChatLogprobs(value: unknown): ChatTokenLogprob[] | undefined {
  if (!isRecord(value) || !Array.isArray(value.content)) return undefined;
  const out: ChatTokenLogprob[] = [];
  for (const entry of value.content) {
    if (!isRecord(entry) || typeof entry.token !== 'string') continue;
    const item: ChatTokenLogprob = { token: entry.token, logprob: num(entry, 'logprob') ?? Number.NaN };
    if (Array.isArray(entry.top_logprobs) && entry.top_logprobs.length > 0) {
      item.top_logprobs = entry.top_logprobs
        .filter(isRecord)
        .filter((t) => typeof t.token === 'string')
        .map((t) => ({ token: t.token as string, logprob: num(t, 'logprob') ?? Number.NaN }));
    }
    out.push(item);
  }
  return out;
}

export function readUsage(value: unknown): ChatUsage | undefined {
  if (!isRecord(value)) return undefined;
  const usage: ChatUsage = {};
  const prompt = num(value, 'prompt_tokens');
  const completion = num(value, 'completion_tokens');
  const total = num(value, 'total_tokens');
  if (prompt !== undefined) usage.prompt_tokens = prompt;
  if (completion !== undefined) usage.completion_tokens = completion;
  if (total !== undefined) usage.total_tokens = total;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

export function finishReasonOf(value: unknown): FinishReason {
  return typeof value === 'string' && value !== '' ? value : 'not_finished';
}

function contentFilterWarning(index: number): ServiceWarning {
  return {
    id: 'content_filter',
    message: `the service's content filter cut answer ${index} short (finish_reason content_filter); the text is incomplete`,
  };
}

/** What every answer and chunk carries besides its choices: id, model (`model`, or watsonx's `model_id`), time. */
function envelope(
  kind: string,
  body: Record<string, unknown>,
): Pick<ChatResult, 'provider' | 'id' | 'model' | 'created_at'> {
  const out: Pick<ChatResult, 'provider' | 'id' | 'model' | 'created_at'> = { provider: kind };
  const id = str(body, 'id');
  if (id) out.id = id;
  const model = str(body, 'model') ?? str(body, 'model_id');
  if (model) out.model = model;
  const created = str(body, 'created_at') ?? isoFromEpoch(body.created);
  if (created) out.created_at = created;
  return out;
}

/** A whole `chat.completion` → the canonical result, choices in `index` order. */
export function parseChatCompletion(kind: string, body: unknown): ChatResult {
  if (!isRecord(body) || !Array.isArray(body.choices)) throw new UnexpectedAnswer('the answer has no "choices" array');
  const warnings: ServiceWarning[] = [];
  const choices: ChatChoice[] = body.choices.map((c, position): ChatChoice => {
    if (!isRecord(c)) throw new UnexpectedAnswer(`choice ${position} is not an object`);
    const message = c.message;
    if (!isRecord(message)) throw new UnexpectedAnswer(`choice ${position} has no "message" object`);
    if (message.content !== null && message.content !== undefined && typeof message.content !== 'string') {
      throw new UnexpectedAnswer(`choice ${position}: "message.content" is not a string`);
    }
    const index = num(c, 'index') ?? position;
    const choice: ChatChoice = {
      index,
      message: { role: 'assistant', content: typeof message.content === 'string' ? message.content : '' },
      finish_reason: finishReasonOf(c.finish_reason),
    };
    const calls = readToolCalls(message.tool_calls, `choice ${position}`);
    if (calls) {
      choice.message.tool_calls = calls;
      // Some servers (older watsonx models, vLLM's parsers) say `stop` on an answer that is tool calls; the
      // canonical result says what the answer is.
      if (choice.finish_reason === 'stop' || choice.finish_reason === 'not_finished')
        choice.finish_reason = 'tool_calls';
    }
    const logprobs = readChatLogprobs(c.logprobs);
    if (logprobs) choice.logprobs = logprobs;
    if (c.finish_reason === 'content_filter') warnings.push(contentFilterWarning(index));
    return choice;
  });
  choices.sort((a, b) => a.index - b.index);
  const result = envelope(kind, body) as ChatResult;
  result.choices = choices;
  const usage = readUsage(body.usage);
  if (usage) result.usage = usage;
  if (warnings.length > 0) result.warnings = warnings;
  return result;
}

/**
 * `chat.completion.chunk` events → canonical chunks. Data-only SSE ended by `data: [DONE]` (OpenAI, Azure, Aleph
 * Alpha) or by the end of the body after the last event (watsonx). Tolerated: `"choices": []` events (Azure's
 * prompt-filter annotation: ignored; a last usage event: kept for its usage), deltas without content (the opening
 * `role` delta), and errors — `event: error`, or an error payload inside the 200 stream — as error steps.
 */
export function createChatCompletionsDecoder(kind: string, errorOf: ErrorReader): (event: SseEvent) => ChatStreamStep {
  return (event) => {
    const step = readJsonEvent(event, errorOf);
    if (step.type !== 'json') return step;
    const body = step.body;
    // Another protocol's event (a completions or watsonx event where chat was asked for): a stream of only these
    // ends in UnexpectedAnswer (exit 4), as for generations.
    if (!isRecord(body) || !Array.isArray(body.choices))
      return { type: 'ignore', unexpected: 'the event has no "choices" array' };
    const usage = readUsage(body.usage);
    const choices: ChatChunkChoice[] = [];
    let warnings: ServiceWarning[] | undefined;
    body.choices.forEach((c, position) => {
      if (!isRecord(c)) return;
      const index = num(c, 'index') ?? position;
      const delta = isRecord(c.delta) ? c.delta : {};
      const choice: ChatChunkChoice = { index, content: typeof delta.content === 'string' ? delta.content : '' };
      const calls = readToolCallDeltas(delta.tool_calls);
      if (calls) choice.tool_calls = calls;
      if (typeof c.finish_reason === 'string' && c.finish_reason !== '') choice.finish_reason = c.finish_reason;
      const logprobs = readChatLogprobs(c.logprobs);
      if (logprobs && logprobs.length > 0) choice.logprobs = logprobs;
      if (c.finish_reason === 'content_filter') (warnings ??= []).push(contentFilterWarning(index));
      choices.push(choice);
    });
    if (choices.length === 0 && !usage) return { type: 'ignore' };
    // Added to the fresh envelope, not spread from it: a leading spread costs a hidden class per event (spread.ts).
    const chunk = envelope(kind, body) as ChatChunk;
    chunk.choices = choices;
    if (usage) chunk.usage = usage;
    if (warnings) chunk.warnings = warnings;
    return { type: 'chunk', chunk, wireBody: body };
  };
}

/** `{"error": …}` inside an OpenAI-shaped stream (OpenAI, Azure, Aleph Alpha's chat). */
export const openAiStyleError: ErrorReader = (body) => {
  if (!isRecord(body) || body.error === undefined || body.error === null) return undefined;
  const e = body.error;
  if (typeof e === 'string') return { message: e, ...(typeof body.code === 'string' ? { code: body.code } : {}) };
  if (!isRecord(e)) return { message: JSON.stringify(e) };
  const code = str(e, 'code') ?? str(e, 'type');
  return { message: str(e, 'message') ?? JSON.stringify(e), ...(code ? { code } : {}) };
};

/** Every canonical parameter the OpenAI-shaped APIs take, so adapters say only where they differ. */
export const OPENAI_CHAT_PARAMETERS: Record<keyof ChatParameters, 'native' | 'unsupported'> = {
  max_tokens: 'native',
  temperature: 'native',
  top_p: 'native',
  stop: 'native',
  seed: 'native',
  n: 'native',
  logprobs: 'native',
  top_logprobs: 'native',
  frequency_penalty: 'native',
  presence_penalty: 'native',
  time_limit: 'unsupported',
};

/**
 * Tools and structured output on the OpenAI-shaped wire ([O] `ChatCompletionCreateParamsBase`: `tools`,
 * `tool_choice`, `parallel_tool_calls`, `response_format` json_object / json_schema); adapters say where they differ.
 */
export const OPENAI_CHAT_FEATURES: Record<ChatFeature, ChatFeatureSupport> = {
  tools: 'native',
  tool_choice: 'native',
  parallel_tool_calls: 'native',
  json_object: 'native',
  json_schema: 'native',
};

export function chatHeaders(stream: boolean): Record<string, string> {
  return { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
}
