/**
 * Structured output: `--response-format text|json_object|json_schema`, `--json-schema <json|@file>` (implies
 * json_schema; the file may be a bare schema or `{"name", "schema", "strict"?}`, OpenAI's `json_schema` object) and
 * `--schema-name` (default "response"). The answer is checked here too, whatever the service promised: a
 * json_object answer must be a JSON object, a json_schema answer must validate against the schema.
 */
import { UsageError } from '../contract/errors.js';
import type { ResponseFormat } from '../contract/chat.js';
import { isRecord } from '../contract/wire-fields.js';
import { describeProblem, type SchemaCheck, type SchemaCompiler } from './json-schema.js';

const TYPES = ['text', 'json_object', 'json_schema'] as const;
const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const WRAPPER_KEYS = new Set(['name', 'schema', 'strict', 'description']);

export interface ResponseFormatFlags {
  responseFormat?: string | undefined;
  jsonSchema?: unknown;
  schemaName?: string | undefined;
}

/** The response format the flags ask for, or undefined; `jsonSchema` is the parsed value of --json-schema. */
export async function buildResponseFormat(flags: ResponseFormatFlags): Promise<ResponseFormat | undefined> {
  const type = flags.responseFormat?.trim();
  if (type !== undefined && !(TYPES as readonly string[]).includes(type))
    throw new UsageError(`--response-format must be one of ${TYPES.join(', ')}, got ${JSON.stringify(type)}`);
  if (flags.jsonSchema === undefined) {
    if (type === 'json_schema')
      throw new UsageError('--response-format json_schema needs the schema: give it with --json-schema <json|@file>');
    if (flags.schemaName !== undefined) throw new UsageError('--schema-name only applies with --json-schema');
    return type === undefined ? undefined : ({ type } as ResponseFormat);
  }
  if (type !== undefined && type !== 'json_schema')
    throw new UsageError(`--json-schema asks for json_schema, but --response-format says ${type}`, {
      hint: 'drop one of them',
    });
  const { loadSchemaCompiler } = await import('./json-schema.js');
  return jsonSchemaFormatWith(flags.jsonSchema, flags.schemaName, '--json-schema', await loadSchemaCompiler());
}

/** `{"name", "schema", "strict"?}` or a bare schema → the canonical json_schema format, its schema compiled. */
export function jsonSchemaFormatWith(
  value: unknown,
  nameFlag: string | undefined,
  where: string,
  compile: SchemaCompiler,
): ResponseFormat {
  if (!isRecord(value)) throw new UsageError(`${where} must be a JSON Schema object (or {"name", "schema", "strict"})`);
  // OpenAI's `json_schema` object holds the schema under "schema"; a bare schema has no such key of that shape.
  const wrapped = isRecord(value.schema) && Object.keys(value).every((k) => WRAPPER_KEYS.has(k));
  const schema = wrapped ? (value.schema as Record<string, unknown>) : value;
  const fileName = wrapped && typeof value.name === 'string' ? value.name : undefined;
  const name = nameFlag ?? fileName ?? 'response';
  if (!SCHEMA_NAME.test(name))
    throw new UsageError(`the schema name must be 1 to 64 letters, digits, "_" or "-", got ${JSON.stringify(name)}`);
  if (wrapped && value.strict !== undefined && typeof value.strict !== 'boolean')
    throw new UsageError(`${where}: "strict" must be true or false`);
  compile(schema, where);
  const json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean } = { name, schema };
  if (wrapped && typeof value.strict === 'boolean') json_schema.strict = value.strict;
  return { type: 'json_schema', json_schema };
}

/** True when the answer must be JSON (and is checked). */
export function wantsJson(format: ResponseFormat | undefined): boolean {
  return format !== undefined && format.type !== 'text';
}

/** What an answer check says: the problem in words, or undefined when the answer is good. */
export type AnswerCheck = (content: string) => string | undefined;

/** A checker for the answers of `format` (ajv loaded when a schema needs it). */
export async function answerChecker(format: ResponseFormat | undefined): Promise<AnswerCheck | undefined> {
  if (!wantsJson(format)) return undefined;
  const { loadSchemaCompiler } = await import('./json-schema.js');
  return answerCheckerWith(format, await loadSchemaCompiler());
}

export function answerCheckerWith(
  format: ResponseFormat | undefined,
  compile: SchemaCompiler,
): AnswerCheck | undefined {
  if (format === undefined || format.type === 'text') return undefined;
  const check: SchemaCheck | undefined =
    format.type === 'json_schema' ? compile(format.json_schema.schema, '--json-schema') : undefined;
  return (content) => {
    let doc: unknown;
    try {
      doc = JSON.parse(content);
    } catch (e) {
      return `the answer is not JSON (${(e as Error).message})`;
    }
    if (check === undefined) return isRecord(doc) ? undefined : 'the answer is JSON but not an object';
    const problems = check(doc);
    return problems === undefined ? undefined : `the answer does not match the schema ${describeProblem(problems[0]!)}`;
  };
}
