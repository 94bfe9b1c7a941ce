/**
 * The tool and structured-output fields of a chat request as every chat route of `serve` reads them (`tools`,
 * `tool_choice`, `parallel_tool_calls`, `response_format`, and the `tool` and assistant `tool_calls` messages of the
 * history), checked as the services check them, into the canonical shapes src/emulator/engine/structured-answer.ts
 * takes. A problem names the field (`tools[0].function.name`) and says what is wrong; each dialect words it in its
 * own error (OpenAI `Invalid '…': …`, watsonx `Json document validation error: …`, Aleph Alpha `Invalid request: …`).
 */
import type { ChatTool, ResponseFormat, ToolCall, ToolChoice } from '../../src/contract/chat.js';
import { isRecord } from '../../src/contract/wire-fields.js';
import type { TurnMessage } from '../../src/emulator/engine/structured-answer.js';

/** What is wrong, and where: `missing` (a required field is absent) or `invalid`. */
export interface ToolFieldProblem {
  kind: 'missing' | 'invalid';
  param: string;
  /** Lower-case, no full stop: "does not match the pattern '^[a-zA-Z0-9_-]{1,64}$'". */
  reason: string;
}

export interface ToolFields {
  tools?: ChatTool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormat;
}

/** The function-name rule OpenAI, Azure and watsonx share. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/** Tools per request, as OpenAI and watsonx bound them. */
export const MAX_TOOLS = 128;

type Result<T> = { ok: true; value: T } | { ok: false; problem: ToolFieldProblem };

const invalid = (param: string, reason: string): { ok: false; problem: ToolFieldProblem } => ({
  ok: false,
  problem: { kind: 'invalid', param, reason },
});
const missing = (param: string): { ok: false; problem: ToolFieldProblem } => ({
  ok: false,
  problem: { kind: 'missing', param, reason: 'is required' },
});

export interface ToolFieldsInput {
  tools?: unknown;
  /** A choice word or `{type: "function", function: {name}}` (watsonx's `tool_choice_option` is read before). */
  tool_choice?: unknown;
  parallel_tool_calls?: unknown;
  response_format?: unknown;
}

/** The fields, checked; `json_object` / `json_schema` only where `formats` allows them. */
export async function readToolFields(
  input: ToolFieldsInput,
  formats: readonly string[] = ['text', 'json_object', 'json_schema'],
): Promise<Result<ToolFields>> {
  const fields: ToolFields = {};
  if (input.tools != null) {
    const tools = await readTools(input.tools);
    if (!tools.ok) return tools;
    fields.tools = tools.value;
  }
  if (input.tool_choice != null) {
    const choice = readToolChoice(input.tool_choice, fields.tools ?? []);
    if (!choice.ok) return choice;
    fields.tool_choice = choice.value;
  }
  if (input.parallel_tool_calls != null) {
    if (typeof input.parallel_tool_calls !== 'boolean') return invalid('parallel_tool_calls', 'must be a boolean');
    fields.parallel_tool_calls = input.parallel_tool_calls;
  }
  if (input.response_format != null) {
    const format = await readResponseFormat(input.response_format, formats);
    if (!format.ok) return format;
    fields.response_format = format.value;
  }
  return { ok: true, value: fields };
}

async function readTools(raw: unknown): Promise<Result<ChatTool[]>> {
  if (!Array.isArray(raw)) return invalid('tools', 'must be an array');
  if (raw.length === 0) return invalid('tools', 'must have at least 1 item');
  if (raw.length > MAX_TOOLS) return invalid('tools', `must have at most ${MAX_TOOLS} items`);
  const tools: ChatTool[] = [];
  const names = new Set<string>();
  for (const [i, t] of raw.entries()) {
    const at = `tools[${i}]`;
    if (!isRecord(t)) return invalid(at, 'must be an object');
    if (t.type !== 'function') return invalid(`${at}.type`, "must be 'function'");
    const fn = t.function;
    if (!isRecord(fn)) return missing(`${at}.function`);
    if (typeof fn.name !== 'string') return missing(`${at}.function.name`);
    if (!TOOL_NAME_PATTERN.test(fn.name))
      return invalid(`${at}.function.name`, `does not match the pattern '${TOOL_NAME_PATTERN.source}'`);
    if (names.has(fn.name)) return invalid(`${at}.function.name`, `repeats the name '${fn.name}' of another tool`);
    names.add(fn.name);
    if (fn.description != null && typeof fn.description !== 'string')
      return invalid(`${at}.function.description`, 'must be a string');
    if (fn.parameters != null) {
      if (!isRecord(fn.parameters)) return invalid(`${at}.function.parameters`, 'must be a JSON Schema object');
      const problem = await schemaProblem(fn.parameters);
      if (problem) return invalid(`${at}.function.parameters`, `is not a valid JSON Schema: ${problem}`);
    }
    const tool: ChatTool = { type: 'function', function: { name: fn.name } };
    if (typeof fn.description === 'string') tool.function.description = fn.description;
    if (isRecord(fn.parameters)) tool.function.parameters = fn.parameters;
    if (typeof fn.strict === 'boolean') tool.function.strict = fn.strict;
    tools.push(tool);
  }
  return { ok: true, value: tools };
}

function readToolChoice(raw: unknown, tools: readonly ChatTool[]): Result<ToolChoice> {
  if (tools.length === 0) return invalid('tool_choice', "is only allowed when 'tools' are specified");
  if (typeof raw === 'string') {
    if (raw === 'auto' || raw === 'none' || raw === 'required') return { ok: true, value: raw };
    return invalid('tool_choice', "must be 'none', 'auto', 'required' or an object naming a function");
  }
  if (!isRecord(raw))
    return invalid('tool_choice', "must be 'none', 'auto', 'required' or an object naming a function");
  if (raw.type !== 'function') return invalid('tool_choice.type', "must be 'function'");
  const fn = raw.function;
  if (!isRecord(fn) || typeof fn.name !== 'string') return missing('tool_choice.function.name');
  if (!tools.some((t) => t.function.name === fn.name))
    return invalid('tool_choice.function.name', `names the function '${fn.name}', which is not one of 'tools'`);
  return { ok: true, value: { function: fn.name } };
}

async function readResponseFormat(raw: unknown, formats: readonly string[]): Promise<Result<ResponseFormat>> {
  if (!isRecord(raw)) return invalid('response_format', 'must be an object');
  const type = raw.type;
  if (typeof type !== 'string') return missing('response_format.type');
  if (!formats.includes(type))
    return invalid(
      'response_format.type',
      `is '${type}'; supported values are ${formats.map((f) => `'${f}'`).join(', ')}`,
    );
  if (type === 'text') return { ok: true, value: { type: 'text' } };
  if (type === 'json_object') return { ok: true, value: { type: 'json_object' } };
  const spec = raw.json_schema;
  if (!isRecord(spec)) return missing('response_format.json_schema');
  if (typeof spec.name !== 'string') return missing('response_format.json_schema.name');
  if (!TOOL_NAME_PATTERN.test(spec.name))
    return invalid('response_format.json_schema.name', `does not match the pattern '${TOOL_NAME_PATTERN.source}'`);
  if (spec.schema == null) return missing('response_format.json_schema.schema');
  if (!isRecord(spec.schema)) return invalid('response_format.json_schema.schema', 'must be a JSON Schema object');
  const problem = await schemaProblem(spec.schema);
  if (problem) return invalid('response_format.json_schema.schema', `is not a valid JSON Schema: ${problem}`);
  const format: ResponseFormat = { type: 'json_schema', json_schema: { name: spec.name, schema: spec.schema } };
  if (typeof spec.strict === 'boolean') format.json_schema.strict = spec.strict;
  return { ok: true, value: format };
}

/** Why the schema is no JSON Schema (checked against the meta-schema), or undefined. ajv loads on first use. */
async function schemaProblem(schema: Record<string, unknown>): Promise<string | undefined> {
  const ajv = await metaValidator();
  if (ajv.validateSchema(schema) === true) return undefined;
  return ajv.errorsText(ajv.errors, { dataVar: 'schema' });
}

type SchemaChecker = {
  validateSchema(schema: object): boolean | Promise<unknown>;
  errors?: unknown;
  errorsText(errors: unknown, options: { dataVar: string }): string;
};
let checker: Promise<SchemaChecker> | undefined;

function metaValidator(): Promise<SchemaChecker> {
  checker ??= import('ajv').then((m) => {
    // ajv's CommonJS default export arrives as `default` (or `default.default`) depending on the loader.
    const mod = m as unknown as { default: unknown };
    const Ajv = ((mod.default as { default?: unknown }).default ?? mod.default) as new (
      options: object,
    ) => SchemaChecker;
    return new Ajv({ strict: false, validateSchema: true });
  });
  return checker;
}

/** A wire message of an OpenAI-shaped history, read loosely: content a string, null or text parts. */
export interface WireChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

/**
 * The history as the engine takes it, checked: a `tool` message needs `tool_call_id` and must answer a call of an
 * earlier assistant message; an assistant's `tool_calls` need id, `type: "function"`, a name and `arguments` text.
 */
export function readMessages(messages: readonly WireChatMessage[]): Result<TurnMessage[]> {
  const out: TurnMessage[] = [];
  const callIds = new Set<string>();
  for (const [i, m] of messages.entries()) {
    const at = `messages[${i}]`;
    const content = textOf(m.content);
    if (content === undefined) return invalid(`${at}.content`, 'must be a string, null or an array of text parts');
    const message: TurnMessage = { role: m.role, content };
    if (m.tool_calls != null) {
      if (m.role !== 'assistant') return invalid(`${at}.tool_calls`, 'is only allowed on assistant messages');
      if (!Array.isArray(m.tool_calls)) return invalid(`${at}.tool_calls`, 'must be an array');
      const calls: ToolCall[] = [];
      for (const [k, c] of m.tool_calls.entries()) {
        const cat = `${at}.tool_calls[${k}]`;
        if (!isRecord(c)) return invalid(cat, 'must be an object');
        if (typeof c.id !== 'string') return missing(`${cat}.id`);
        if (c.type !== undefined && c.type !== 'function') return invalid(`${cat}.type`, "must be 'function'");
        const fn = c.function;
        if (!isRecord(fn) || typeof fn.name !== 'string') return missing(`${cat}.function.name`);
        if (typeof fn.arguments !== 'string') return missing(`${cat}.function.arguments`);
        calls.push({ id: c.id, type: 'function', function: { name: fn.name, arguments: fn.arguments } });
        callIds.add(c.id);
      }
      message.tool_calls = calls;
    }
    if (m.role === 'tool') {
      if (typeof m.tool_call_id !== 'string' || m.tool_call_id === '') return missing(`${at}.tool_call_id`);
      if (!callIds.has(m.tool_call_id))
        return invalid(
          `${at}.tool_call_id`,
          `is '${m.tool_call_id}', which answers no tool call of an earlier assistant message`,
        );
      message.tool_call_id = m.tool_call_id;
    } else if (content === null && !message.tool_calls) {
      return missing(`${at}.content`);
    }
    out.push(message);
  }
  return { ok: true, value: out };
}

/** A message's text: a string, null, or the text of `[{type: "text", text}]` parts; undefined for anything else. */
function textOf(content: unknown): string | null | undefined {
  if (content === undefined || content === null) return null;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  let text = '';
  for (const part of content) {
    if (!isRecord(part) || typeof part.text !== 'string') return undefined;
    text += part.text;
  }
  return text;
}

/** OpenAI's wording of a problem: `Missing required parameter: '…'.` or `Invalid '…': ….` */
export function openAiWording(problem: ToolFieldProblem): string {
  return problem.kind === 'missing'
    ? `Missing required parameter: '${problem.param}'.`
    : `Invalid '${problem.param}': ${problem.reason}.`;
}
