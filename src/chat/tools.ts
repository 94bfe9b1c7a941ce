/**
 * `--tools <json|@file>` and `--tool-choice`, checked before anything is sent: the tools are an array of
 * `{"type": "function", "function": {"name", "description"?, "parameters"?}}` (the shape OpenAI, Azure, watsonx and
 * Aleph Alpha take), names as the services allow them (`^[a-zA-Z0-9_-]{1,64}$`, OpenAI's rule) and unique, and
 * `parameters` a JSON Schema object that compiles. The choice is `auto`, `none`, `required` or one of the names.
 */
import { UsageError } from '../contract/errors.js';
import type { ChatTool, ToolChoice } from '../contract/chat.js';
import { isRecord } from '../contract/wire-fields.js';
import type { SchemaCompiler } from './json-schema.js';

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const FUNCTION_KEYS = new Set(['name', 'description', 'parameters', 'strict']);

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

/** The tools of `flag` (a parsed JSON value), checked; `parameters` schemas are compiled (ajv, loaded lazily). */
export async function checkTools(value: unknown, flag: string): Promise<ChatTool[]> {
  const { loadSchemaCompiler } = await import('./json-schema.js');
  return checkToolsWith(value, flag, await loadSchemaCompiler());
}

export function checkToolsWith(value: unknown, flag: string, compile: SchemaCompiler): ChatTool[] {
  if (!Array.isArray(value))
    throw new UsageError(
      `${flag} must be a JSON array of {"type": "function", "function": {...}}, got ${kindOf(value)}`,
    );
  if (value.length === 0) throw new UsageError(`${flag} is an empty array: give at least one tool`);
  const seen = new Set<string>();
  const tools: ChatTool[] = [];
  for (const [i, entry] of value.entries()) {
    const at = `${flag}[${i}]`;
    if (!isRecord(entry)) throw new UsageError(`${at} must be an object {"type": "function", "function": {...}}`);
    for (const key of Object.keys(entry))
      if (key !== 'type' && key !== 'function')
        throw new UsageError(`${at}: unknown field "${key}" (a tool has type and function)`);
    if (entry.type !== 'function')
      throw new UsageError(`${at}.type must be "function", got ${JSON.stringify(entry.type) ?? 'nothing'}`);
    const fn = entry.function;
    if (!isRecord(fn)) throw new UsageError(`${at}.function must be an object {"name", "description"?, "parameters"?}`);
    for (const key of Object.keys(fn))
      if (!FUNCTION_KEYS.has(key))
        throw new UsageError(`${at}.function: unknown field "${key}" (known: name, description, parameters, strict)`);
    if (typeof fn.name !== 'string' || !NAME.test(fn.name))
      throw new UsageError(
        `${at}.function.name must be 1 to 64 letters, digits, "_" or "-", got ${JSON.stringify(fn.name) ?? 'nothing'}`,
      );
    if (seen.has(fn.name))
      throw new UsageError(`${at}.function.name: "${fn.name}" is given twice; names must be unique`);
    seen.add(fn.name);
    if (fn.description !== undefined && typeof fn.description !== 'string')
      throw new UsageError(`${at}.function.description must be a string`);
    if (fn.strict !== undefined && typeof fn.strict !== 'boolean')
      throw new UsageError(`${at}.function.strict must be true or false`);
    const tool: ChatTool = { type: 'function', function: { name: fn.name } };
    if (fn.description !== undefined) tool.function.description = fn.description as string;
    if (fn.parameters !== undefined) {
      if (!isRecord(fn.parameters))
        throw new UsageError(`${at}.function.parameters must be a JSON Schema object, got ${kindOf(fn.parameters)}`);
      compile(fn.parameters, `${at}.function.parameters`);
      tool.function.parameters = fn.parameters;
    }
    if (fn.strict !== undefined) tool.function.strict = fn.strict as boolean;
    tools.push(tool);
  }
  return tools;
}

const WORDS = ['auto', 'none', 'required'] as const;

/** `--tool-choice auto|none|required|NAME`: a name must be one of the tools. */
export function parseToolChoice(
  value: string,
  tools: readonly ChatTool[] | undefined,
  flag = '--tool-choice',
): ToolChoice {
  const v = value.trim();
  if ((WORDS as readonly string[]).includes(v)) {
    if (tools === undefined && v !== 'none') throw new UsageError(`${flag} ${v} needs tools: give them with --tools`);
    return v as ToolChoice;
  }
  if (tools === undefined) throw new UsageError(`${flag} ${JSON.stringify(v)} names a tool, but no --tools were given`);
  if (!tools.some((t) => t.function.name === v))
    throw new UsageError(
      `${flag} must be auto, none, required or the name of one of the tools (${tools.map((t) => t.function.name).join(', ')}), got ${JSON.stringify(v)}`,
    );
  return { function: v };
}

/** A tool choice as a batch line may give it: a word, a name, or OpenAI's `{"type": "function", "function": {"name"}}`. */
export function checkToolChoiceValue(
  value: unknown,
  tools: readonly ChatTool[] | undefined,
  where: string,
): ToolChoice {
  if (typeof value === 'string') return parseToolChoice(value, tools, where);
  if (isRecord(value) && isRecord(value.function) && typeof value.function.name === 'string')
    return parseToolChoice(value.function.name, tools, where);
  throw new UsageError(
    `${where} must be "auto", "none", "required", a tool's name or {"type": "function", "function": {"name"}}`,
  );
}
