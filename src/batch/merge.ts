/**
 * `textgen batch merge`: the outputs of a sharded batch (`--shard K/N`, one file per shard) put back together into
 * one file in line order, streaming: each part is read line by line and only its next record is held, so memory
 * does not grow with the files (docs/batch.md).
 *
 * The parts must fit together: each in line order (as a batch writes them), no line in two records, no line
 * without one. Without the input file, "no line without one" means the line numbers run from 1 without a gap up to
 * the last; with it, every non-blank line of the input has exactly one record and no record names a blank line or
 * a line past its end. Anything else is refused with one message naming the files and the line.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { UsageError } from '../contract/errors.js';
import { MAX_LINE_BYTES, readLines } from './line-reader.js';

/** The lines of a part; one longer than the reader's cap cannot be a record textgen wrote. */
async function* wholeLines(file: string, stream: AsyncIterable<Buffer>): AsyncGenerator<string, void, undefined> {
  let n = 0;
  for await (const line of readLines(stream)) {
    n += 1;
    if (line === undefined)
      throw new UsageError(`${file}: line ${n} is longer than ${MAX_LINE_BYTES} bytes: not a batch output record`);
    yield line;
  }
}

export interface MergeStats {
  records: number;
  failed: number;
  lastLine: number;
}

interface Record {
  line: number;
  text: string;
  failed: boolean;
}

interface Part {
  file: string;
  /** Its place on the command line, so that messages name two parts in that order. */
  order: number;
  lines: AsyncIterator<string>;
  /** Physical line of the file last read, for messages. */
  at: number;
  current: Record | undefined;
}

const HINT_PART = 'each part must be a whole batch output (--resume or stdout of one --shard run), unchanged';

/** A batch record's line number and outcome, or a UsageError naming where the file stops being one. */
function parseRecord(text: string, file: string, at: number): Record {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(
      `${file}, line ${at}: not a batch record (not JSON${text.length > 0 ? '; a run killed while writing leaves a cut last line' : ''})`,
      { hint: HINT_PART },
    );
  }
  const record = value as { line?: unknown; result?: unknown; error?: unknown } | null;
  const line = record?.line;
  if (
    record === null ||
    typeof record !== 'object' ||
    typeof line !== 'number' ||
    !Number.isSafeInteger(line) ||
    line < 1
  ) {
    throw new UsageError(`${file}, line ${at}: not a batch record (no "line" number)`, { hint: HINT_PART });
  }
  if ((record.result === undefined) === (record.error === undefined)) {
    throw new UsageError(`${file}, line ${at}: not a batch record (it needs exactly one of "result" and "error")`, {
      hint: HINT_PART,
    });
  }
  return { line, text, failed: record.error !== undefined };
}

async function advance(part: Part): Promise<void> {
  const previous = part.current;
  for (;;) {
    const next = await part.lines.next();
    if (next.done === true) {
      part.current = undefined;
      return;
    }
    part.at += 1;
    if (next.value.trim() === '') continue;
    const record = parseRecord(next.value, part.file, part.at);
    if (previous !== undefined && record.line <= previous.line) {
      throw new UsageError(
        record.line === previous.line
          ? `${part.file}: two records for line ${record.line}`
          : `${part.file}: not in line order (line ${record.line} after line ${previous.line})`,
        { hint: HINT_PART },
      );
    }
    part.current = record;
    return;
  }
}

/** A binary min-heap of parts by their current record's line: the next record out is at the top. */
class PartHeap {
  readonly #items: Part[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): Part | undefined {
    return this.#items[0];
  }

  push(part: Part): void {
    const items = this.#items;
    items.push(part);
    let i = items.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (lineOf(items[up]) <= lineOf(items[i])) break;
      [items[up], items[i]] = [items[i] as Part, items[up] as Part];
      i = up;
    }
  }

  pop(): Part | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let min = i;
        if (l < items.length && lineOf(items[l]) < lineOf(items[min])) min = l;
        if (r < items.length && lineOf(items[r]) < lineOf(items[min])) min = r;
        if (min === i) break;
        [items[min], items[i]] = [items[i] as Part, items[min] as Part];
        i = min;
      }
    }
    return top;
  }
}

function lineOf(part: Part | undefined): number {
  return part?.current?.line ?? Number.POSITIVE_INFINITY;
}

/** The input file's lines in step with the merged records: which are blank, and where it ends. */
class InputLines {
  #line = 0;
  #done = false;
  readonly #lines: AsyncIterator<string>;

  constructor(
    readonly file: string,
    stream: AsyncIterable<Buffer>,
  ) {
    this.#lines = wholeLines(file, stream)[Symbol.asyncIterator]();
  }

  /** Moves to `line` (later than the current one); every line passed on the way must be blank. */
  async moveTo(line: number): Promise<void> {
    while (this.#line < line) {
      const next = await this.#lines.next();
      if (next.done === true) {
        this.#done = true;
        throw new UsageError(`line ${line} has a record, but ${this.file} has only ${this.#line} lines`, {
          hint: 'merge the outputs of a batch over this very input file',
        });
      }
      this.#line += 1;
      const blank = next.value.trim() === '';
      if (this.#line === line && blank) {
        throw new UsageError(`line ${line} has a record, but it is blank in ${this.file}`, {
          hint: 'merge the outputs of a batch over this very input file',
        });
      }
      if (this.#line < line && !blank) throw missing(`line ${this.#line} of ${this.file} has no record in any part`);
    }
  }

  close(): Promise<unknown> {
    return this.#lines.return?.() ?? Promise.resolve();
  }

  /** After the last record: the rest of the input must be blank. */
  async finish(): Promise<void> {
    if (this.#done) return;
    for (;;) {
      const next = await this.#lines.next();
      if (next.done === true) return;
      this.#line += 1;
      if (next.value.trim() !== '') throw missing(`line ${this.#line} of ${this.file} has no record in any part`);
    }
  }
}

function missing(message: string): UsageError {
  return new UsageError(message, {
    hint: 'a part is missing or was cut short: run that shard again with --resume on its part, then merge',
  });
}

async function openPart(file: string, order: number): Promise<Part> {
  try {
    const s = await stat(file);
    if (s.isDirectory()) throw new UsageError(`${file} is a directory, not a batch output file`);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? (e as Error).message)}`,
    );
  }
  const part: Part = {
    file,
    order,
    lines: wholeLines(file, createReadStream(file, { highWaterMark: 256 * 1024 }))[Symbol.asyncIterator](),
    at: 0,
    current: undefined,
  };
  await advance(part);
  return part;
}

export interface MergeOptions {
  /** The batch's input file: then blank lines may have no record and lines past the last record are checked. */
  input?: string | undefined;
  /** Receives each record's text (without its newline), in line order; may hold the merge back. */
  emit?: (text: string) => void | Promise<void>;
  signal?: AbortSignal;
}

/** One pass over the parts: checks that they fit together and hands each record to `emit` in line order. */
export async function mergeParts(files: readonly string[], options: MergeOptions = {}): Promise<MergeStats> {
  const seen = new Map<string, number>();
  files.forEach((file, i) => {
    if (seen.has(file)) throw new UsageError(`${file} is given twice`);
    seen.set(file, i);
  });
  const parts: Part[] = [];
  const heap = new PartHeap();
  let input: InputLines | undefined;
  try {
    for (const [order, file] of files.entries()) {
      const part = await openPart(file, order);
      parts.push(part);
      if (part.current !== undefined) heap.push(part);
    }
    if (options.input !== undefined) {
      await stat(options.input).catch((e: NodeJS.ErrnoException) => {
        throw new UsageError(
          `--input: cannot read ${options.input}: ${e.code === 'ENOENT' ? 'no such file' : (e.code ?? e.message)}`,
        );
      });
      input = new InputLines(options.input, createReadStream(options.input, { highWaterMark: 256 * 1024 }));
    }
    const stats: MergeStats = { records: 0, failed: 0, lastLine: 0 };
    let lastPart: Part | undefined;
    while (heap.size > 0) {
      if (options.signal?.aborted) break;
      const part = heap.pop() as Part;
      const record = part.current as Record;
      if (record.line === stats.lastLine && lastPart !== undefined) {
        const [first, second] = [lastPart, part].sort((a, b) => a.order - b.order) as [Part, Part];
        throw new UsageError(`line ${record.line} has a record in both ${first.file} and ${second.file}`, {
          hint: 'merge the outputs of one sharded batch (--shard K/N with the same N), each part once',
        });
      }
      if (input !== undefined) await input.moveTo(record.line);
      else if (record.line !== stats.lastLine + 1) {
        const gap =
          record.line - 1 === stats.lastLine + 1
            ? `line ${stats.lastLine + 1} has`
            : `lines ${stats.lastLine + 1}–${record.line - 1} have`;
        throw missing(
          `${gap} no record in any part (the next is line ${record.line}, in ${part.file}); if the input has blank lines there, pass --input FILE`,
        );
      }
      await options.emit?.(record.text);
      stats.records += 1;
      if (record.failed) stats.failed += 1;
      stats.lastLine = record.line;
      lastPart = part;
      await advance(part);
      if (part.current !== undefined) heap.push(part);
    }
    if (input !== undefined && !options.signal?.aborted) await input.finish();
    return stats;
  } finally {
    for (const part of parts) await part.lines.return?.();
    await input?.close();
  }
}
