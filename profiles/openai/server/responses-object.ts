/**
 * The `Response` object of OpenAI's Responses API as `serve` writes it (openai 6's `Response` in
 * node_modules/openai/resources/responses/responses.d.ts): the request's settings echoed with the service's
 * defaults, the output items, status, `incomplete_details` and usage. `output_text` is left out: the SDKs add it.
 */
import type { StopReason } from '../../../src/contract/canonical.js';
import type { Generation } from '../../../src/emulator/engine/types.js';
import type { ResponsesBody } from './responses-validate.js';
import { answerHex, answerSeconds } from '../../../src/emulator/core/answer-clock.js';

/** OpenAI's ids: a prefix and 48 hex digits (`resp_…`, `msg_…`, `fc_…`, `call_…`). */
export function responsesId(prefix: 'resp' | 'msg' | 'fc' | 'call'): string {
  return `${prefix}_${answerHex(24)}`;
}

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: never[];
  logprobs: never[];
}

export interface MessageItem {
  id: string;
  type: 'message';
  status: 'in_progress' | 'completed' | 'incomplete';
  role: 'assistant';
  content: OutputText[];
}

export interface FunctionCallItem {
  id: string;
  type: 'function_call';
  status: 'in_progress' | 'completed' | 'incomplete';
  arguments: string;
  call_id: string;
  name: string;
}

export type OutputItem = MessageItem | FunctionCallItem;

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete';

export function responseUsage(input: number, output: number): ResponseUsage {
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

export function outputText(text: string): OutputText {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** What stays the same from `response.created` to `response.completed`. */
export interface ResponseHead {
  id: string;
  created_at: number;
  model: string;
  body: ResponsesBody;
}

/** The whole object; `output` and `usage` as they stand at this point of the answer. */
export function responseObject(
  head: ResponseHead,
  status: ResponseStatus,
  output: readonly OutputItem[],
  usage: ResponseUsage | null,
): Record<string, unknown> {
  const b = head.body;
  return {
    id: head.id,
    object: 'response',
    created_at: head.created_at,
    status,
    background: false,
    completed_at: status === 'in_progress' ? null : answerSeconds(),
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: b.instructions ?? null,
    max_output_tokens: b.max_output_tokens ?? null,
    max_tool_calls: null,
    model: head.model,
    output,
    parallel_tool_calls: b.parallel_tool_calls ?? true,
    previous_response_id: b.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: b.store ?? true,
    temperature: b.temperature ?? 1,
    text: { format: b.text?.format ?? { type: 'text' }, verbosity: b.text?.verbosity ?? 'medium' },
    tool_choice: b.tool_choice ?? 'auto',
    tools: (b.tools ?? []).map((t) => ({
      type: 'function',
      name: t.name,
      description: t.description ?? null,
      parameters: t.parameters ?? null,
      strict: t.strict ?? true,
    })),
    top_p: b.top_p ?? 1,
    truncation: b.truncation ?? 'disabled',
    usage,
    user: b.user ?? null,
    metadata: b.metadata ?? {},
  };
}

export function responseStatusOf(stop: StopReason): 'completed' | 'incomplete' {
  return stop === 'max_tokens' || stop === 'token_limit' ? 'incomplete' : 'completed';
}

/** Text in pieces of a few characters, as the service streams deltas of an answer made whole beforehand. */
export function argumentPieces(text: string, size = 8): string[] {
  return text.match(new RegExp(`[^]{1,${size}}`, 'gu')) ?? [];
}

/**
 * What a response answers: the engine's text as it is generated, or a finished structured answer (a JSON document,
 * or function calls) streamed in pieces, with its status and usage.
 */
export type ResponseAnswer =
  | { kind: 'text'; generation: Generation; messageId: string }
  | {
      kind: 'structured';
      /** A message with the JSON text, or the function calls. */
      output: OutputItem[];
      status: 'completed' | 'incomplete';
      usage: ResponseUsage;
    };
