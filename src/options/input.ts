/**
 * Where the prompt comes from (DESIGN §1 "Input"): `--input`, `--input-file PATH|-`, or piped stdin.
 */
import { UsageError } from '../errors.js';
import { readStreamText } from './read-stream.js';
import { readUserFile } from './read-text-file.js';

export interface InputIo {
  cwd: string;
  stdin: NodeJS.ReadableStream;
  stdinIsTTY: boolean;
  readFile?: (path: string) => Promise<string>;
  homeDir?: string;
}

/**
 * The prompt text, or undefined when there is none to read (stdin is a terminal, or piped stdin
 * was empty): the caller then asks on a terminal or reports the missing option.
 *
 * An explicit source is returned as it is, even when empty: `--input ""` and an empty
 * `--input-file` give "", and the caller decides whether an empty prompt is acceptable (the
 * services reject it; a dry run may not care). A UTF-8 BOM at the start of a file or of stdin
 * is dropped.
 *
 * Reading stdin waits for its end, as `cat` does; a closed or already-consumed stdin ends at once.
 */
export async function resolveInput(raw: { input?: string; inputFile?: string }, io: InputIo): Promise<string | undefined> {
  if (raw.input !== undefined && raw.inputFile !== undefined) {
    throw new UsageError('--input and --input-file cannot be used together', { hint: 'give the prompt one way' });
  }
  if (raw.input !== undefined) return raw.input;
  if (raw.inputFile !== undefined) {
    if (raw.inputFile === '') throw new UsageError('--input-file needs a path, or - for stdin');
    if (raw.inputFile === '-') return readStreamText(io.stdin);
    return readUserFile('--input-file', raw.inputFile, io);
  }
  if (io.stdinIsTTY) return undefined;
  const text = await readStreamText(io.stdin);
  return text === '' ? undefined : text;
}

/** "missing required options: --id-or-name, --input (or --input-file, or pipe the prompt on stdin)". */
export function missingFlagsError(flags: readonly string[]): UsageError {
  const described = flags.map((f) =>
    f === '--input' ? '--input (or --input-file, or pipe the prompt on stdin)' : f === 'PROMPT' ? 'PROMPT (words after the command, --input-file, or the prompt piped on stdin)' : f,
  );
  const noun = flags.length === 1 ? 'option' : 'options';
  return new UsageError(`missing required ${noun}: ${described.join(', ')}`);
}
