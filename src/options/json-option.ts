import { UsageError } from '../contract/errors.js';
import { findJsonSyntaxError, lineAndColumn } from './json-syntax-error.js';
import { readStdinText, readTextFile } from './input.js';
import { stripBom } from './read-stream.js';
import type { FileReadOptions } from './read-text-file.js';
import { jsonDepthExceededAt } from '../contract/json-depth.js';

/**
 * Deepest nesting a JSON option may have. Real options are a few levels deep; JSON.parse takes far
 * deeper text, but what later walks the value recursively (zod, merging, JSON.stringify of the wire body)
 * would overflow the stack on a few thousand levels.
 */
export const MAX_JSON_DEPTH = 100;

export interface JsonOptionIo extends FileReadOptions {
  /** Reads all of stdin for `@-`; commands pass their context's stdin. Defaults to process.stdin. */
  stdin?: () => Promise<string>;
}

/**
 * The value of a JSON option (cpd-cli style): inline JSON, `@path` (relative to cwd, `~/` from
 * home) or `@-` for stdin. Every failure is a UsageError that names the flag, the source and, for
 * bad JSON, the line and column.
 */
export async function readJsonOption(flag: string, value: string, opts: JsonOptionIo): Promise<unknown> {
  if (!value.startsWith('@')) {
    if (value.trim() === '')
      throw new UsageError(`${flag}: empty value`, { hint: `give JSON, or @file to read it from a file` });
    return parseJsonText(flag, value, undefined);
  }
  const path = value.slice(1);
  if (path === '')
    throw new UsageError(`${flag}: missing file name after "@"`, {
      hint: `write ${flag} @path/to/file.json, or @- for stdin`,
    });
  const fromStdin = path === '-';
  const text = fromStdin ? stripBom(await (opts.stdin ?? readProcessStdin)()) : await readTextFile(flag, path, opts);
  const source = fromStdin ? 'stdin' : path;
  if (text.trim() === '')
    throw new UsageError(`${flag}: ${source} is empty`, { hint: 'it should hold one JSON value' });
  return parseJsonText(flag, text, source);
}

let processStdin: Promise<string> | undefined;

/** stdin can be read once per process; a second `@-` read (a command validating twice) gets the same text. */
function readProcessStdin(): Promise<string> {
  processStdin ??= readStdinText(process.stdin);
  return processStdin;
}

/** JSON.parse with a message that points at the error. `source` is a file name, "stdin", or undefined for inline text. */
export function parseJsonText(flag: string, text: string, source: string | undefined): unknown {
  const where = source === undefined ? '' : source === 'stdin' ? ' from stdin' : ` in ${source}`;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    const problem = findJsonSyntaxError(text);
    if (problem === undefined) {
      // The scanner and JSON.parse disagree; JSON.parse's own words are the best we have.
      throw new UsageError(`${flag}: invalid JSON${where}: ${(err as Error).message}`, { cause: err });
    }
    const { line, column } = lineAndColumn(text, problem.offset);
    // An inline value that looks like a file name most likely lost its "@".
    const looksLikePath = source === undefined && /^[^\s[{"]*[./][^\s]*$/.test(text.trim());
    const hint = looksLikePath ? `to read JSON from a file, write ${flag} @${text.trim()}` : problem.hint;
    throw new UsageError(`${flag}: invalid JSON${where} at line ${line}, column ${column}: ${problem.message}`, {
      ...(hint ? { hint } : {}),
      cause: err,
    });
  }
  const tooDeep = jsonDepthExceededAt(text, MAX_JSON_DEPTH);
  if (tooDeep !== undefined) {
    const { line, column } = lineAndColumn(text, tooDeep);
    throw new UsageError(
      `${flag}: JSON${where} is nested more than ${MAX_JSON_DEPTH} levels deep (line ${line}, column ${column})`,
      {
        hint: 'flatten it: no option needs that many levels',
      },
    );
  }
  return value;
}

/**
 * A `"__proto__"` key anywhere in a JSON object of body fields (`--extra`): refused with the words `--parameters`
 * uses for a field it does not know. JSON.parse keeps it as a plain key, but the first spread, assignment or schema
 * that copies the object turns it into the object's prototype, so the field was dropped without a word.
 */
export function refusePrototypeKeys(flag: string, value: unknown, path: readonly string[] = []): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => refusePrototypeKeys(flag, item, [...path, `[${i}]`]));
    return;
  }
  for (const key of Object.keys(value)) {
    const at = [...path, key];
    if (key === '__proto__') {
      throw new UsageError(`${flag}: unknown field "${at.join('.').replace(/\.\[/g, '[')}"`, {
        hint: 'a "__proto__" key cannot be sent: JavaScript would take it for the object\'s prototype, not a field',
      });
    }
    refusePrototypeKeys(flag, (value as Record<string, unknown>)[key], at);
  }
}
