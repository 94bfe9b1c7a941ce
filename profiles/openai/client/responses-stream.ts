/**
 * A streamed Responses answer (`stream: true`) → canonical chat chunks, one SSE event at a time (src/call/stream.ts
 * reads the stream; this only maps). Text deltas (`response.output_text.delta`) become content; a `function_call`
 * item (`response.output_item.added`) opens a tool call (its index in call order, id, name), whose
 * `response.function_call_arguments.delta`s add argument text; `response.completed` / `response.incomplete` close the
 * choice with its finish reason and usage. `event: error` and `response.failed` are errors in the stream (exit 6).
 * The rest (`response.created`, `.in_progress`, part and `.done` events) carries nothing new. The envelope (id,
 * model, time) comes with `response.created` and goes on every chunk.
 */
import type { ChatChunk, ChatChunkChoice } from '../../../src/contract/chat.js';
import type { ChatStreamStep } from '../../../src/contract/adapter-operations/chat.js';
import type { SseEvent } from '../../../src/contract/http.js';
import { isRecord } from '../../../src/contract/wire-fields.js';
import { readJsonEvent, type ErrorReader } from '../../common/json-events.js';
import { responsesEnvelope, responsesFinishReason, responsesOutput, responsesUsage } from './responses-read.js';

/** `{type: "error", code, message}` (the `error` event's data), or a failed response's `error`. */
const responsesError: ErrorReader = (body) => {
  if (!isRecord(body)) return undefined;
  const e = body.type === 'response.failed' && isRecord(body.response) ? body.response.error : body.error;
  const source = body.type === 'error' ? body : isRecord(e) ? e : undefined;
  if (source === undefined) return undefined;
  const message = typeof source.message === 'string' ? source.message : JSON.stringify(source);
  return { message, ...(typeof source.code === 'string' ? { code: source.code } : {}) };
};

/** Event types that carry nothing the canonical chunks do not already have. */
const QUIET = new Set([
  'response.in_progress',
  'response.queued',
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.done',
  'response.function_call_arguments.done',
  'response.output_item.done',
  'response.output_text.annotation.added',
]);

export function createResponsesDecoder(kind: string): (event: SseEvent) => ChatStreamStep {
  let envelope: Omit<ChatChunk, 'choices'> = { provider: kind };
  /** Function-call item id → its index among the answer's calls. */
  const calls = new Map<string, number>();
  const chunk = (choice: ChatChunkChoice, wireBody: unknown, extra: Partial<ChatChunk> = {}): ChatStreamStep => ({
    type: 'chunk',
    chunk: { ...envelope, choices: [choice], ...extra },
    wireBody,
  });

  return (event) => {
    const step = readJsonEvent(event, responsesError);
    if (step.type !== 'json') return step;
    const body = step.body;
    if (!isRecord(body) || typeof body.type !== 'string')
      return { type: 'ignore', unexpected: 'the event has no "type" string' };
    switch (body.type) {
      case 'response.created':
        if (isRecord(body.response)) envelope = responsesEnvelope(kind, body.response);
        return { type: 'ignore' };
      case 'response.output_text.delta':
        return typeof body.delta === 'string' ? chunk({ index: 0, content: body.delta }, body) : { type: 'ignore' };
      case 'response.output_item.added': {
        const item = body.item;
        if (!isRecord(item) || item.type !== 'function_call') return { type: 'ignore' };
        const index = calls.size;
        calls.set(typeof item.id === 'string' ? item.id : String(index), index);
        const delta = {
          index,
          ...(typeof item.call_id === 'string' ? { id: item.call_id } : {}),
          ...(typeof item.name === 'string' ? { name: item.name } : {}),
          arguments: typeof item.arguments === 'string' ? item.arguments : '',
        };
        return chunk({ index: 0, content: '', tool_calls: [delta] }, body);
      }
      case 'response.function_call_arguments.delta': {
        const index = typeof body.item_id === 'string' ? calls.get(body.item_id) : undefined;
        if (index === undefined || typeof body.delta !== 'string') return { type: 'ignore' };
        return chunk({ index: 0, content: '', tool_calls: [{ index, arguments: body.delta }] }, body);
      }
      case 'response.completed':
      case 'response.incomplete': {
        const response = isRecord(body.response) ? body.response : {};
        const called = Array.isArray(response.output) ? responsesOutput(response.output).toolCalls.length : calls.size;
        const usage = responsesUsage(response.usage);
        const finish = responsesFinishReason(response, called);
        return chunk({ index: 0, content: '', finish_reason: finish }, body, usage ? { usage } : {});
      }
      case 'response.failed': {
        const failure = responsesError(body);
        return {
          type: 'error',
          message: failure?.message ?? 'the response failed',
          ...(failure?.code ? { code: failure.code } : {}),
          wireBody: body,
        };
      }
      case 'error': {
        const failure = responsesError(body);
        return {
          type: 'error',
          message: failure?.message ?? 'the service reported an error',
          ...(failure?.code ? { code: failure.code } : {}),
          wireBody: body,
        };
      }
      default:
        return QUIET.has(body.type) || body.type.startsWith('response.')
          ? { type: 'ignore' }
          : { type: 'ignore', unexpected: `the event type "${body.type}" is not a Responses API event` };
    }
  };
}
