/**
 * Where the prompt comes from (docs/design.md §1 "Input"): `--input`, `--input-file PATH|-`, or piped stdin.
 * Also the bounded, strict reader for text the user points the CLI at (files and stdin), shared with
 * json-option.ts: both kinds of input obey the same limits (docs/hostile-input.md).
 */
import { UsageError } from '../contract/errors.js';
import { openForReading } from './open-for-reading.js';
import { readStreamBounded, TooLarge } from './read-bounded.js';
import { stripBom } from './read-stream.js';
import { readUserFile, type FileReadOptions } from './read-text-file.js';

/**
 * The most text read from a file or stdin: 16 MiB, several times the largest context window of any service
 * (about 2 million tokens is 8 MB of text). Reading stops there, so `yes | textgen …` or `@/dev/zero` end
 * with a usage error instead of filling memory.
 */
export const MAX_TEXT_BYTES = 16 * 1024 * 1024;

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
 * is dropped. Files and stdin must be UTF-8 text of at most MAX_TEXT_BYTES.
 *
 * Reading stdin waits for its end, as `cat` does; a closed or already-consumed stdin ends at once.
 */
export async function resolveInput(
  raw: { input?: string; inputFile?: string },
  io: InputIo,
): Promise<string | undefined> {
  if (raw.input !== undefined && raw.inputFile !== undefined) {
    throw new UsageError('--input and --input-file cannot be used together', { hint: 'give the prompt one way' });
  }
  if (raw.input !== undefined) return raw.input;
  if (raw.inputFile !== undefined) {
    if (raw.inputFile === '') throw new UsageError('--input-file needs a path, or - for stdin');
    if (raw.inputFile === '-') return readStdinText(io.stdin, '--input-file -');
    return readTextFile('--input-file', raw.inputFile, io);
  }
  if (io.stdinIsTTY) return undefined;
  const text = await readStdinText(io.stdin);
  return text === '' ? undefined : text;
}

/** "missing required options: --id-or-name, --input (or --input-file, or pipe the prompt on stdin)". */
export function missingFlagsError(flags: readonly string[]): UsageError {
  const described = flags.map((f) =>
    f === '--input'
      ? '--input (or --input-file, or pipe the prompt on stdin)'
      : f === 'PROMPT'
        ? 'PROMPT (words after the command, --input-file, or the prompt piped on stdin)'
        : f,
  );
  const noun = flags.length === 1 ? 'option' : 'options';
  return new UsageError(`missing required ${noun}: ${described.join(', ')}`);
}

/** Why a byte sequence was refused; the readers turn it into a UsageError that names the source. */
class TextProblem extends Error {}

/**
 * All of stdin as UTF-8 text, BOM dropped. `flag` names the reader in messages ("--input-file -",
 * "--parameters @-"); without it the prompt was piped. A stream that has already ended yields ""
 * instead of waiting for an 'end' that will never come again.
 */
export async function readStdinText(stream: NodeJS.ReadableStream, flag?: string): Promise<string> {
  const who = flag === undefined ? '' : `${flag}: `;
  const readable = stream as NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean };
  if (readable.readableEnded === true || readable.destroyed === true) return '';
  try {
    return stripBom(decodeUtf8(await readBounded(stream)));
  } catch (e) {
    if (e instanceof TextProblem) throw new UsageError(`${who}stdin ${e.message}`, { hint: hintFor(e) });
    throw new UsageError(`${who}cannot read stdin: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * A text file named on the command line (relative to cwd, `~/` from home): UTF-8, at most
 * MAX_TEXT_BYTES, BOM dropped. Special files work too (`/dev/stdin`, a FIFO): it reads as a stream.
 * Every failure is a UsageError naming the flag and the path.
 */
export async function readTextFile(flag: string, path: string, io: FileReadOptions): Promise<string> {
  if (io.readFile) return readUserFile(flag, path, io);
  try {
    return await readUserFile(flag, path, {
      ...io,
      readFile: async (absolute) => decodeUtf8(await readBounded(await openForReading(absolute))),
    });
  } catch (e) {
    if (e instanceof UsageError && e.cause instanceof TextProblem) {
      throw new UsageError(`${flag}: ${path} ${e.cause.message}`, { hint: hintFor(e.cause) });
    }
    throw e;
  }
}

function hintFor(problem: TextProblem): string {
  return problem.message.startsWith('is not UTF-8')
    ? 'convert it first, e.g. iconv -f latin1 -t utf-8'
    : 'a prompt or JSON option that size is beyond what any service accepts; cut it down or split the work';
}

async function readBounded(stream: NodeJS.ReadableStream): Promise<Buffer> {
  try {
    return await readStreamBounded(stream, MAX_TEXT_BYTES);
  } catch (e) {
    if (e instanceof TooLarge) throw new TextProblem(`${e.message}; textgen reads at most that much`);
    throw e;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Buffer): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    throw new TextProblem(
      `is not UTF-8 text: invalid byte 0x${bytes[at]?.toString(16).toUpperCase().padStart(2, '0') ?? '??'} at offset ${at}`,
    );
  }
}

/** Offset of the first byte that does not start or continue a well-formed UTF-8 sequence. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const need =
      b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) return i;
    if (i + need >= bytes.length) return i;
    // The second byte's range excludes overlong forms, surrogates and code points above U+10FFFF.
    const lo = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
    const hi = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k]!;
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return bytes.length;
}
