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
  argumentPieces,
  responseStatusOf,
  type ResponseAnswer,
} from './responses-object.js';
import { merged } from '../../../src/contract/spread.js';

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

export interface StreamedAnswer {
  status: 'completed' | 'incomplete';
  output: OutputItem[];
  response: Record<string, unknown>;
}

type Send = (type: string, fields: Record<string, unknown>) => boolean | Promise<boolean>;

/** One message item's events around its text pieces; the finished item, or undefined when the stream ended. */
async function streamMessage(
  send: Send,
  outputIndex: number,
  id: string,
  pieces: AsyncIterable<string> | Iterable<string>,
  finalStatus: () => 'completed' | 'incomplete',
): Promise<MessageItem | undefined> {
  const at = { output_index: outputIndex };
  const message: MessageItem = { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] };
  if (!(await send('response.output_item.added', merged(at, { item: message })))) return undefined;
  const part = { item_id: id, ...at, content_index: 0 };
  if (!(await send('response.content_part.added', merged(part, { part: outputText('') })))) return undefined;
  let text = '';
  for await (const delta of pieces) {
    if (delta === '') continue;
    text += delta;
    if (!(await send('response.output_text.delta', merged(part, { delta, logprobs: [] })))) return undefined;
  }
  if (!(await send('response.output_text.done', merged(part, { text, logprobs: [] })))) return undefined;
  if (!(await send('response.content_part.done', merged(part, { part: outputText(text) })))) return undefined;
  const item: MessageItem = { ...message, status: finalStatus(), content: [outputText(text)] };
  if (!(await send('response.output_item.done', merged(at, { item })))) return undefined;
  return item;
}

/** One function call's events: the item, its arguments in pieces, their whole text, the finished item. */
async function streamCall(send: Send, outputIndex: number, call: FunctionCallItem): Promise<boolean> {
  const at = { output_index: outputIndex };
  if (
    !(await send(
      'response.output_item.added',
      merged(at, { item: merged(call, { status: 'in_progress', arguments: '' }) }),
    ))
  )
    return false;
  const where = { item_id: call.id, ...at };
  for (const delta of argumentPieces(call.arguments))
    if (!(await send('response.function_call_arguments.delta', merged(where, { delta })))) return false;
  if (
    !(await send(
      'response.function_call_arguments.done',
      merged(where, { name: call.name, arguments: call.arguments }),
    ))
  )
    return false;
  return send('response.output_item.done', merged(at, { item: call }));
}

async function* generatedText(generation: Generation): AsyncGenerator<string> {
  for await (const step of generation) yield step.text;
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
  const send: Send = (type, fields) =>
    events.send({ event: type, data: JSON.stringify({ type, ...fields, sequence_number: sequence++ }) });
  events.open();
  const opening = responseObject(head, 'in_progress', [], null);
  if (!(await send('response.created', { response: opening }))) return undefined;
  if (!(await send('response.in_progress', { response: opening }))) return undefined;

  let output: OutputItem[];
  let status: 'completed' | 'incomplete';
  let usage: ResponseUsage;
  if (answer.kind === 'text') {
    const generation = answer.generation;
    const statusNow = () => responseStatusOf(generation.summary().stopReason);
    const item = await streamMessage(send, 0, answer.messageId, generatedText(generation), statusNow);
    if (item === undefined || ctx.signal.aborted) return undefined;
    const summary = generation.summary();
    output = [item];
    status = statusNow();
    usage = responseUsage(summary.inputTokenCount, summary.generatedTokenCount);
  } else {
    output = answer.output;
    status = answer.status;
    usage = answer.usage;
    for (const [index, item] of output.entries()) {
      const ok =
        item.type === 'message'
          ? (await streamMessage(send, index, item.id, argumentPieces(item.content[0]?.text ?? ''), () => status)) !==
            undefined
          : await streamCall(send, index, item);
      if (!ok) return undefined;
    }
  }
  const response = responseObject(head, status, output, usage);
  if (!(await send(status === 'completed' ? 'response.completed' : 'response.incomplete', { response })))
    return undefined;
  await events.end();
  return { status, output, response };
}
