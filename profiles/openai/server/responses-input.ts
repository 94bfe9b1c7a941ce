/**
 * A Responses request's `input` as the conversation of a chat turn (structured-answer.ts's `TurnMessage`): a string is one user message; items are
 * messages (`{role, content}`, content a string or `input_text` / `output_text` parts), `function_call` and
 * `function_call_output` items, and `item_reference`s to output items `serve` kept. What `previous_response_id`
 * names comes first; `instructions` go before it all as a system message, and are not carried to the next response
 * (OpenAI's rule: "instructions from a previous response will not be carried over").
 */
import { isRecord } from '../../../src/contract/wire-fields.js';
import type { TurnMessage } from '../../../src/emulator/engine/structured-answer.js';
import type { CompletionsError } from './errors.js';
import type { ResponsesStore } from './responses-store.js';

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);

const invalid = (message: string, param: string, code = 'invalid_value'): CompletionsError => ({
  message,
  type: 'invalid_request_error',
  param,
  code,
});

/** The text of a message's content: a string, or its text parts joined (an image or file is named, not seen). */
function contentText(content: unknown, at: string): string | CompletionsError {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    return invalid(`Invalid type for '${at}': expected a string or an array.`, at, 'invalid_type');
  const parts: string[] = [];
  for (const [i, part] of content.entries()) {
    if (!isRecord(part))
      return invalid(`Invalid type for '${at}[${i}]': expected an object.`, `${at}[${i}]`, 'invalid_type');
    if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string')
      parts.push(part.text);
    else if (part.type === 'refusal' && typeof part.refusal === 'string') parts.push(part.refusal);
    else if (part.type === 'input_image' || part.type === 'input_file' || part.type === 'input_audio')
      parts.push(`[${part.type}]`);
    else
      return invalid(
        `Invalid value: '${String(part.type)}'. Supported values are: 'input_text', 'input_image', 'input_file', 'output_text' and 'refusal'.`,
        `${at}[${i}].type`,
      );
  }
  return parts.join('\n');
}

/** One input item (or a referenced output item) as engine messages; reasoning items carry nothing to read. */
function itemMessages(
  item: Record<string, unknown>,
  at: string,
  store: ResponsesStore,
): TurnMessage[] | CompletionsError {
  const type = item.type ?? 'message';
  if (type === 'message') {
    if (typeof item.role !== 'string' || !MESSAGE_ROLES.has(item.role))
      return invalid(
        `Invalid value: '${String(item.role)}'. Supported values are: 'user', 'assistant', 'system', and 'developer'.`,
        `${at}.role`,
      );
    const text = contentText(item.content, `${at}.content`);
    if (typeof text !== 'string') return text;
    return [{ role: item.role === 'developer' ? 'system' : item.role, content: text }];
  }
  if (type === 'function_call') {
    if (typeof item.name !== 'string' || typeof item.call_id !== 'string' || typeof item.arguments !== 'string')
      return invalid(
        `Missing required parameter: '${at}.${typeof item.name !== 'string' ? 'name' : typeof item.call_id !== 'string' ? 'call_id' : 'arguments'}'.`,
        at,
        'missing_required_parameter',
      );
    const call = {
      id: item.call_id,
      type: 'function' as const,
      function: { name: item.name, arguments: item.arguments },
    };
    return [{ role: 'assistant', content: null, tool_calls: [call] }];
  }
  if (type === 'function_call_output') {
    if (typeof item.call_id !== 'string')
      return invalid(`Missing required parameter: '${at}.call_id'.`, `${at}.call_id`, 'missing_required_parameter');
    const output = contentText(item.output, `${at}.output`);
    if (typeof output !== 'string') return output;
    return [{ role: 'tool', content: output, tool_call_id: item.call_id }];
  }
  if (type === 'item_reference') {
    const found = typeof item.id === 'string' ? store.item(item.id) : undefined;
    if (!found) return invalid(`Item with id '${String(item.id)}' not found.`, `${at}.id`, 'invalid_value');
    return itemMessages(found, at, store);
  }
  if (type === 'reasoning') return [];
  return invalid(
    `Invalid value: '${String(type)}'. Supported values are: 'message', 'function_call', 'function_call_output', 'item_reference' and 'reasoning'.`,
    `${at}.type`,
  );
}

/** The request's own turn (without what came before it), or the 400 the service answers. */
export function inputMessages(
  input: string | Record<string, unknown>[] | undefined | null,
  store: ResponsesStore,
): TurnMessage[] | CompletionsError {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const out: TurnMessage[] = [];
  for (const [i, item] of input.entries()) {
    if (!isRecord(item))
      return invalid(`Invalid type for 'input[${i}]': expected an object.`, `input[${i}]`, 'invalid_type');
    const messages = itemMessages(item, `input[${i}]`, store);
    if (!Array.isArray(messages)) return messages;
    out.push(...messages);
  }
  return out;
}
