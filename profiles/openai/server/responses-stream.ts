/**
 * A streamed Responses answer (`stream: true`): typed server-sent events, each named by `event:` and carrying its
 * `type` and a `sequence_number` from 0, in OpenAI's order — `response.created`, `response.in_progress`, then per
 * output item `response.output_item.added`, for a message `response.content_part.added`,
 * `response.output_text.delta`…, `response.output_text.done`, `response.content_part.done`, for a function call
 * `response.function_call_arguments.delta`… and `.done`, then `response.output_item.done`, and last
 * `response.completed` (or `response.incomplete` when max_output_tokens cut the answer). Event shapes: openai 6's
 * ResponseStreamEvent.
 */
import { EventStream, type StreamFaultWording } from '../../../src/emulator/core/event-stream.js';
import type { RouteContext } from '../../../src/emulator/core/router.js';
import type { Fault } from '../../../src/emulator/core/types.js';
import type { Generation } from '../../../src/emulator/engine/types.js';
import {
  outputText,
  responseObject,
  responseUsage,
  type FunctionCallItem,
  type MessageItem,
  type OutputItem,
  type ResponseHead,
  type ResponseUsage,
} from './responses-object.js';
import { responseStatusOf, type PlannedCall } from './responses-answer.js';

/** The in-stream error OpenAI sends (`event: error`), and a data line that is not JSON, for the stream faults. */
function wording(sequence: () => number): StreamFaultWording {
  return {
    errorEvent: () => ({
      event: 'error',
      data: JSON.stringify({
        type: 'error',
        code: 'server_error',
        message: 'The server had an error while processing your request. Sorry about that!',
        param: null,
        sequence_number: sequence(),
      }),
    }),
    malformedEvent: () => ({
      event: 'response.output_text.delta',
      data: '{"type":"response.output_text.delta","delta":',
    }),
  };
}

/** What a response answers: the engine's text, or a function call planned before (with its usage). */
export type ResponseAnswer =
  | { kind: 'text'; generation: Generation; messageId: string }
  | { kind: 'call'; call: PlannedCall; inputTokens: number; outputTokens: number };

export interface StreamedAnswer {
  status: 'completed' | 'incomplete';
  output: OutputItem[];
  response: Record<string, unknown>;
}

/** Streams `answer` and returns what was answered, or undefined when the stream ended early (client gone, a fault). */
export async function streamResponse(
  ctx: RouteContext,
  fault: Fault | undefined,
  head: ResponseHead,
  answer: ResponseAnswer,
): Promise<StreamedAnswer | undefined> {
  let sequence = 0;
  const events = new EventStream(
    ctx,
    fault,
    wording(() => sequence),
  );
  const send = (type: string, fields: Record<string, unknown>) =>
    events.send({ event: type, data: JSON.stringify({ type, ...fields, sequence_number: sequence++ }) });
  events.open();
  const opening = responseObject(head, 'in_progress', [], null);
  if (!(await send('response.created', { response: opening }))) return undefined;
  if (!(await send('response.in_progress', { response: opening }))) return undefined;

  const at = { output_index: 0 };
  let item: OutputItem;
  let status: 'completed' | 'incomplete' = 'completed';
  let usage: ResponseUsage;
  if (answer.kind === 'text') {
    const message: MessageItem = {
      id: answer.messageId,
      type: 'message',
      status: 'in_progress',
      role: 'assistant',
      content: [],
    };
    if (!(await send('response.output_item.added', { ...at, item: message }))) return undefined;
    const part = { item_id: message.id, ...at, content_index: 0 };
    if (!(await send('response.content_part.added', { ...part, part: outputText('') }))) return undefined;
    let text = '';
    for await (const step of answer.generation) {
      if (step.text === '') continue;
      text += step.text;
      if (!(await send('response.output_text.delta', { ...part, delta: step.text, logprobs: [] }))) return undefined;
    }
    if (ctx.signal.aborted) return undefined;
    const summary = answer.generation.summary();
    status = responseStatusOf(summary.stopReason);
    if (!(await send('response.output_text.done', { ...part, text, logprobs: [] }))) return undefined;
    if (!(await send('response.content_part.done', { ...part, part: outputText(text) }))) return undefined;
    item = { ...message, status: status === 'completed' ? 'completed' : 'incomplete', content: [outputText(text)] };
    usage = responseUsage(summary.inputTokenCount, summary.generatedTokenCount);
  } else {
    const call = answer.call;
    const opened: FunctionCallItem = { ...call.item, status: 'in_progress', arguments: '' };
    if (!(await send('response.output_item.added', { ...at, item: opened }))) return undefined;
    const where = { item_id: opened.id, ...at };
    for (const delta of call.pieces)
      if (!(await send('response.function_call_arguments.delta', { ...where, delta }))) return undefined;
    const done = { ...where, name: call.item.name, arguments: call.item.arguments };
    if (!(await send('response.function_call_arguments.done', done))) return undefined;
    item = { ...call.item, status: 'completed' };
    usage = responseUsage(answer.inputTokens, answer.outputTokens);
  }
  if (!(await send('response.output_item.done', { ...at, item }))) return undefined;
  const output = [item];
  const response = responseObject(head, status, output, usage);
  if (!(await send(status === 'completed' ? 'response.completed' : 'response.incomplete', { response })))
    return undefined;
  await events.end();
  return { status, output, response };
}
