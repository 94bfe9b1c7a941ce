/**
 * Reading Responses API answers into the canonical chat vocabulary, whole (`parseResponse`) or piece by piece for the
 * stream decoder (responses-stream.ts): `output` items → content and tool calls, `status`/`incomplete_details` →
 * finish reason, usage → the canonical names. Field names from openai 6's `Response`.
 */
import type { ChatResult, ChatUsage, FinishReason, ToolCall } from '../../../src/contract/chat.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import { isRecord } from '../../../src/contract/wire-fields.js';
import { isoFromEpoch } from '../../common/chat-completions.js';

/** `input_tokens`/`output_tokens`/`total_tokens` → the canonical names. */
export function responsesUsage(value: unknown): ChatUsage | undefined {
  if (!isRecord(value)) return undefined;
  const usage: ChatUsage = {};
  const n = (k: string) =>
    typeof value[k] === 'number' && Number.isFinite(value[k]) ? (value[k] as number) : undefined;
  const input = n('input_tokens');
  const output = n('output_tokens');
  const total = n('total_tokens');
  if (input !== undefined) usage.prompt_tokens = input;
  if (output !== undefined) usage.completion_tokens = output;
  if (total !== undefined) usage.total_tokens = total;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** `status` and `incomplete_details.reason` in chat's words; a completed answer with calls ended for `tool_calls`. */
export function responsesFinishReason(response: Record<string, unknown>, calls: number): FinishReason {
  const status = response.status;
  if (status === 'incomplete') {
    const reason = isRecord(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    return reason === 'max_output_tokens' ? 'length' : reason === 'content_filter' ? 'content_filter' : 'length';
  }
  if (status === 'completed' || status === undefined) return calls > 0 ? 'tool_calls' : 'stop';
  if (status === 'failed') return 'error';
  if (status === 'cancelled') return 'cancelled';
  return typeof status === 'string' ? status : 'stop';
}

/** The message text and the calls of a response's `output` items; other item kinds (reasoning) carry neither. */
export function responsesOutput(output: unknown): { content: string; toolCalls: ToolCall[] } {
  if (!Array.isArray(output)) throw new UnexpectedAnswer('the answer has no "output" array');
  let content = '';
  const toolCalls: ToolCall[] = [];
  output.forEach((item, i) => {
    if (!isRecord(item)) throw new UnexpectedAnswer(`output[${i}] is not an object`);
    if (item.type === 'message' && Array.isArray(item.content)) {
      for (const part of item.content)
        if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') content += part.text;
    } else if (item.type === 'function_call') {
      if (typeof item.name !== 'string' || typeof item.arguments !== 'string')
        throw new UnexpectedAnswer(`output[${i}] is a function_call without "name" and "arguments" strings`);
      const id = typeof item.call_id === 'string' ? item.call_id : typeof item.id === 'string' ? item.id : `call_${i}`;
      toolCalls.push({ id, type: 'function', function: { name: item.name, arguments: item.arguments } });
    }
  });
  return { content, toolCalls };
}

/** The envelope fields of a Response object, canonical. */
export function responsesEnvelope(kind: string, body: Record<string, unknown>) {
  const out: Pick<ChatResult, 'provider' | 'id' | 'model' | 'created_at'> = { provider: kind };
  if (typeof body.id === 'string' && body.id !== '') out.id = body.id;
  if (typeof body.model === 'string' && body.model !== '') out.model = body.model;
  const created = isoFromEpoch(body.created_at);
  if (created) out.created_at = created;
  return out;
}

/** A whole `response` object → the canonical result (one choice). */
export function parseResponse(kind: string, body: unknown): ChatResult {
  if (!isRecord(body) || body.object !== 'response')
    throw new UnexpectedAnswer('the answer is not a Responses API "response" object');
  const { content, toolCalls } = responsesOutput(body.output);
  const result: ChatResult = {
    ...responsesEnvelope(kind, body),
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: responsesFinishReason(body, toolCalls.length),
      },
    ],
  };
  const usage = responsesUsage(body.usage);
  if (usage) result.usage = usage;
  return result;
}
