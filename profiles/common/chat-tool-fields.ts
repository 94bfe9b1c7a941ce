/**
 * The tool and structured-output fields of the OpenAI-shaped chat wires (docs/protocols/chat.md, "Tools and
 * structured output, per dialect"): messages with tool calls and tool results, the tool choice in each dialect's
 * field, `response_format`, and tool calls read back from answers and stream chunks.
 */
import type { ChatMessage, ChatRequest, ToolCall, ToolCallDelta } from '../../src/contract/chat.js';
import { UnexpectedAnswer } from '../../src/contract/errors.js';
import { isRecord } from '../../src/contract/wire-fields.js';

function num(record: Record<string, unknown>, key: string): number | undefined {
  const v = record[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function str(record: Record<string, unknown>, key: string): string | undefined {
  const v = record[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * One message as the chat APIs take it: a tool result is `{role: "tool", tool_call_id, content}`; an assistant turn
 * that called tools carries `tool_calls` and leaves `content` out when it is empty (OpenAI's
 * `ChatCompletionAssistantMessageParam` and watsonx's `TextChatMessageAssistant` both make it optional then).
 */
export function wireMessage(m: ChatMessage): Record<string, unknown> {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id ?? '', content: m.content };
  if (m.role === 'assistant' && m.tool_calls !== undefined && m.tool_calls.length > 0) {
    return {
      role: 'assistant',
      ...(m.content !== '' ? { content: m.content } : {}),
      tool_calls: m.tool_calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.function.name, arguments: c.function.arguments },
      })),
    };
  }
  return { role: m.role, content: m.content };
}

/**
 * How a dialect carries `tool_choice`: OpenAI, Azure and Aleph Alpha take the word or `{type: "function",
 * function: {name}}` in `tool_choice`; watsonx takes the word in `tool_choice_option` and the object in
 * `tool_choice`, never both (the SDK's `TextChatParameters`).
 */
export type ToolChoiceDialect = 'openai' | 'watsonx';

export function toolChoiceFields(request: ChatRequest, dialect: ToolChoiceDialect): Record<string, unknown> {
  const choice = request.tool_choice;
  if (choice === undefined) return {};
  if (typeof choice === 'string')
    return dialect === 'watsonx' ? { tool_choice_option: choice } : { tool_choice: choice };
  return { tool_choice: { type: 'function', function: { name: choice.function } } };
}

export function responseFormatField(request: ChatRequest): Record<string, unknown> {
  const f = request.response_format!;
  if (f.type !== 'json_schema') return { type: f.type };
  const { name, schema, strict } = f.json_schema;
  return { type: 'json_schema', json_schema: { name, schema, ...(strict !== undefined ? { strict } : {}) } };
}

/**
 * `message.tool_calls` of an answer → canonical calls. `arguments` is JSON text on every documented wire; a server
 * that sends an object (some OpenAI-compatible ones do) gets it re-serialised. A call without an id is given
 * `call_<index>` so a tool result can still name it.
 */
export function readToolCalls(value: unknown, where: string): ToolCall[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new UnexpectedAnswer(`${where}: "tool_calls" is not an array`);
  const calls: ToolCall[] = value.map((c, i) => {
    if (!isRecord(c) || !isRecord(c.function) || typeof c.function.name !== 'string')
      throw new UnexpectedAnswer(`${where}: tool call ${i} has no function name`);
    const args = c.function.arguments;
    return {
      id: typeof c.id === 'string' && c.id !== '' ? c.id : `call_${i}`,
      type: 'function',
      function: {
        name: c.function.name,
        arguments: typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args),
      },
    };
  });
  return calls.length > 0 ? calls : undefined;
}

/** `delta.tool_calls` of a chunk → canonical pieces; watsonx's stream items may omit `index` (their position then). */
export function readToolCallDeltas(value: unknown): ToolCallDelta[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: ToolCallDelta[] = [];
  value.forEach((c, position) => {
    if (!isRecord(c)) return;
    const piece: ToolCallDelta = { index: num(c, 'index') ?? position };
    const id = str(c, 'id');
    if (id) piece.id = id;
    if (isRecord(c.function)) {
      const name = str(c.function, 'name');
      if (name) piece.name = name;
      const args = c.function.arguments;
      if (typeof args === 'string' && args !== '') piece.arguments = args;
      else if (isRecord(args)) piece.arguments = JSON.stringify(args);
    }
    out.push(piece);
  });
  return out.length > 0 ? out : undefined;
}
