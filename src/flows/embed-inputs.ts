/**
 * Where `embed` gets its texts: the words after the command (one text), `--input-file PATH|-` (one text per line,
 * or a JSON array of strings), or piped stdin read like `--input-file -`. Every failure is a UsageError.
 */
import { UsageError } from '../contract/errors.js';
import { parseJsonText } from '../options/json-option.js';
import { readStdinText, readTextFile } from '../options/input.js';

export interface EmbedInputSource {
  /** Positional words, joined with spaces into one text. */
  words: readonly string[];
  inputFile?: string | undefined;
}

export interface EmbedInputIo {
  cwd: string;
  stdin: NodeJS.ReadableStream;
  stdinIsTTY: boolean;
  readFile?: (path: string) => Promise<string>;
  homeDir?: string;
}

/** How the missing texts are named in "missing required options". */
export const MISSING_TEXT = 'TEXT (words after the command, --input-file, or texts piped on stdin)';

/**
 * Every text to embed, in order; never empty, and no text is empty (the services reject those). Undefined when
 * there is no source at all (stdin is a terminal, or piped stdin was empty): the caller reports what is missing.
 */
export async function readEmbedInputs(source: EmbedInputSource, io: EmbedInputIo): Promise<string[] | undefined> {
  if (source.words.length > 0 && source.inputFile !== undefined) {
    throw new UsageError('give the texts once: as words on the command line, or with --input-file');
  }
  if (source.words.length > 0) {
    const text = source.words.join(' ');
    if (text.trim() === '') throw new UsageError('TEXT is empty: there is nothing to embed');
    return [text];
  }
  if (source.inputFile !== undefined) {
    if (source.inputFile === '') throw new UsageError('--input-file needs a path, or - for stdin');
    const fromStdin = source.inputFile === '-';
    const text = fromStdin
      ? await readStdinText(io.stdin, '--input-file')
      : await readTextFile('--input-file', source.inputFile, io);
    return parseEmbedInputs(text, '--input-file', fromStdin ? 'stdin' : source.inputFile);
  }
  if (io.stdinIsTTY) return undefined;
  const piped = await readStdinText(io.stdin);
  if (piped.trim() === '') return undefined;
  return parseEmbedInputs(piped, 'TEXT', 'stdin');
}

/**
 * A file's texts: a JSON array of strings when the content starts with `[`, else one text per line with blank
 * lines skipped (a line keeps its spaces: they are part of the text). `flag` and `source` name it in messages.
 */
export function parseEmbedInputs(text: string, flag: string, source: string): string[] {
  let texts: string[];
  if (text.trimStart().startsWith('[')) {
    const value = parseJsonText(flag, text, source);
    if (!Array.isArray(value)) throw new UsageError(`${flag}: ${source} must hold a JSON array of strings`);
    texts = value.map((item, i) => {
      if (typeof item !== 'string') {
        throw new UsageError(
          `${flag}: item ${i} of the JSON array in ${source} is ${item === null ? 'null' : typeof item}, not a string`,
        );
      }
      if (item.trim() === '')
        throw new UsageError(
          `${flag}: item ${i} of the JSON array in ${source} is empty; the services reject empty texts`,
        );
      return item;
    });
  } else {
    texts = text.split(/\r\n|\n|\r/).filter((line) => line.trim() !== '');
  }
  if (texts.length === 0) throw new UsageError(`${flag}: ${source} holds no text to embed`);
  return texts;
}
