/**
 * JSON Schema for chat: a tool's `parameters` and `--json-schema` are compiled before anything is sent (an invalid
 * schema is a usage error naming where it came from), and answers are checked against them. ajv does the work; it
 * is loaded on first use only, so `chat` without tools or a schema never pays for it.
 */
import type { ValidateFunction } from 'ajv';
import { UsageError } from '../contract/errors.js';

/** The first problem of a value against a schema: a JSON pointer into the value ("" for the value itself). */
export interface SchemaProblem {
  path: string;
  message: string;
}

/** A compiled schema: undefined when the value is valid, else its problems (the first one first). */
export type SchemaCheck = (value: unknown) => SchemaProblem[] | undefined;

const DRAFT_2020 = /json-schema\.org\/draft\/2020-12\//;

/** Compiles `schema`; `where` names it in the usage error ("--tools[0].function.parameters"). */
export type SchemaCompiler = (schema: Record<string, unknown>, where: string) => SchemaCheck;

let loaded: Promise<SchemaCompiler> | undefined;

/**
 * The compiler, once ajv is loaded. Drafts 07 and 2020-12 (by `$schema`) are understood; unknown keywords and
 * formats are allowed (services take schemas with keywords of their own), but a schema that breaks its draft's
 * meta-schema (`"type": "strin"`) is refused.
 */
export function loadSchemaCompiler(): Promise<SchemaCompiler> {
  loaded ??= (async () => {
    const options = { allErrors: false, strict: false, logger: false, validateFormats: false } as const;
    const [{ Ajv }, { Ajv2020 }] = await Promise.all([import('ajv'), import('ajv/dist/2020.js')]);
    const draft07 = new Ajv(options);
    const draft2020 = new Ajv2020(options);
    return (schema, where) => {
      const ajv = DRAFT_2020.test(String(schema.$schema ?? '')) ? draft2020 : draft07;
      // The meta-schema check first, for one clear problem ("at /type: must be …") instead of ajv's list.
      if (ajv.validateSchema(schema) !== true) {
        const first = ajv.errors?.[0];
        const at = first?.instancePath ? ` at ${first.instancePath}` : '';
        throw new UsageError(`${where} is not a valid JSON Schema${at}: ${first?.message ?? 'invalid'}`);
      }
      let validate: ValidateFunction;
      try {
        validate = ajv.compile(schema);
      } catch (e) {
        throw new UsageError(`${where} is not a valid JSON Schema: ${firstLine((e as Error).message)}`);
      }
      return (value) => {
        if (validate(value)) return undefined;
        return (validate.errors ?? []).map((err) => ({ path: err.instancePath, message: err.message ?? 'is invalid' }));
      };
    };
  })();
  return loaded;
}

export async function compileSchema(schema: Record<string, unknown>, where: string): Promise<SchemaCheck> {
  return (await loadSchemaCompiler())(schema, where);
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? text;
  return line.replace(/^schema is invalid: /, '');
}

/** "at /a/0: must be number" — the pointer shown as `/` for the document itself. */
export function describeProblem(problem: SchemaProblem): string {
  return `at ${problem.path === '' ? '/' : problem.path}: ${problem.message}`;
}
