/**
 * `--resume OUTPUT`: which lines an earlier run already got a result for, and the file that receives this run's
 * records merged with the earlier successful ones.
 *
 * The earlier output is read twice, streaming both times: once before the batch to mark its successful lines in a
 * bitmap (those lines are skipped), and once during the batch, in step with the new records, to copy the earlier
 * successful records into a temporary file next to OUTPUT in line order. At the end — finished, stopped or
 * interrupted — the rest of the earlier records is copied and the temporary file replaces OUTPUT in one rename. So
 * OUTPUT is at every moment either the old file or the new one, never half-written, and always resumable: each line
 * of the input (of this shard) has at most one record, its successful record when it ever had one.
 */
import { createReadStream, createWriteStream, type Stats, type WriteStream } from 'node:fs';
import { lstat, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { inShard, type Shard } from './settings.js';
import { LineBitmap } from './line-bitmap.js';
import { readLines } from './line-reader.js';
import type { RecordSink } from './scheduler.js';

const LINE_NUMBER = /^\{"line":(\d+)[,}]/;

/** What a path that is not a regular file is, for the message refusing it. */
function kindOf(s: Stats): string {
  if (s.isDirectory()) return 'a directory';
  if (s.isSymbolicLink()) return 'a symbolic link';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isFIFO()) return 'a named pipe';
  if (s.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Whether OUTPUT exists. Anything there that is not a regular file is refused before the batch starts: the output
 * is replaced by a rename at the end, which would turn /dev/null into a file or a symbolic link into a copy.
 */
async function exists(path: string): Promise<boolean> {
  try {
    const s = await lstat(path);
    if (s.isDirectory()) throw new UsageError(`--resume: ${path} is a directory, not a batch output file`);
    if (!s.isFile()) throw new UsageError(`--resume: ${path} is ${kindOf(s)}, not a regular file; textgen replaces the file it resumes, so give the path of a regular file (or of one that does not exist yet)`);
    return true;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new UsageError(`--resume: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/**
 * The lines of this shard that have a successful record in the earlier output (empty when the file does not exist
 * yet, so CI can always pass --resume). A line that is not a whole record — the truncated last line of a killed
 * run — is ignored. Records must be in line order, as a batch writes them.
 */
export async function readDoneLines(path: string, shard: Shard | undefined): Promise<LineBitmap> {
  const done = new LineBitmap();
  if (!(await exists(path))) return done;
  let previous = 0;
  for await (const text of readLines(createReadStream(path, { highWaterMark: 256 * 1024 }))) {
    if (!text.startsWith('{"line":')) continue;
    let record: { line?: unknown; result?: unknown };
    try {
      record = JSON.parse(text) as { line?: unknown; result?: unknown };
    } catch {
      continue;
    }
    const line = record.line;
    if (typeof line !== 'number' || !Number.isSafeInteger(line) || line < 1) continue;
    if (line < previous) throw new UsageError(`--resume: ${path} is not in line order (line ${line} after line ${previous}); it was not written by a batch run`);
    previous = line;
    if (record.result !== undefined && inShard(line, shard)) done.add(line);
  }
  return done;
}

/** This run's records merged, in line order, with the earlier successful ones, into a file that replaces OUTPUT. */
export class ResumeFileSink implements RecordSink {
  readonly #path: string;
  readonly #temp: string;
  readonly #done: LineBitmap;
  readonly #copied = new LineBitmap();
  #out: WriteStream;
  #buffer: string[] = [];
  #buffered = 0;
  #old: AsyncIterator<string> | undefined;
  #oldHead: { line: number; text: string } | undefined;
  #oldEnded = false;
  #failure: unknown;

  private constructor(path: string, done: LineBitmap, old: AsyncIterator<string> | undefined) {
    this.#path = path;
    this.#done = done;
    this.#temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
    this.#out = createWriteStream(this.#temp, { flags: 'w' });
    this.#out.on('error', (e) => {
      this.#failure ??= e;
    });
    this.#old = old;
    this.#oldEnded = old === undefined;
  }

  static async open(path: string, done: LineBitmap): Promise<ResumeFileSink> {
    const old = (await exists(path)) ? readLines(createReadStream(path, { highWaterMark: 256 * 1024 }))[Symbol.asyncIterator]() : undefined;
    const sink = new ResumeFileSink(path, done, old);
    await new Promise<void>((resolve, reject) => {
      sink.#out.once('open', () => resolve());
      sink.#out.once('error', (e) => reject(new UsageError(`--resume: cannot write next to ${path}: ${(e as NodeJS.ErrnoException).code ?? e.message}`)));
    });
    await sink.#advanceOld();
    return sink;
  }

  /** Moves to the next earlier record worth keeping: successful, first of its line. */
  async #advanceOld(): Promise<void> {
    this.#oldHead = undefined;
    while (!this.#oldEnded && this.#old) {
      const next = await this.#old.next();
      if (next.done) {
        this.#oldEnded = true;
        return;
      }
      const m = LINE_NUMBER.exec(next.value);
      if (!m) continue;
      const line = Number(m[1]);
      if (!this.#done.has(line) || this.#copied.has(line)) continue;
      this.#copied.add(line);
      this.#oldHead = { line, text: next.value };
      return;
    }
  }

  write(line: number, record: string): void | Promise<void> {
    if (this.#oldHead !== undefined && this.#oldHead.line < line) return this.#copyOldBefore(line).then(() => this.#append(record));
    return this.#append(record);
  }

  async #copyOldBefore(line: number): Promise<void> {
    while (this.#oldHead !== undefined && this.#oldHead.line < line) {
      const p = this.#append(`${this.#oldHead.text}\n`);
      if (p) await p;
      await this.#advanceOld();
    }
  }

  #append(text: string): void | Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    this.#buffer.push(text);
    this.#buffered += text.length;
    if (this.#buffered < 64 * 1024) return undefined;
    return this.#flushBuffer();
  }

  #flushBuffer(): Promise<void> | undefined {
    if (this.#buffer.length === 0) return undefined;
    const chunk = this.#buffer.join('');
    this.#buffer = [];
    this.#buffered = 0;
    if (this.#out.write(chunk)) return undefined;
    return new Promise((resolve) => this.#out.once('drain', () => resolve()));
  }

  /** Copies the rest of the earlier records, then puts the merged file in place of OUTPUT. */
  async finish(): Promise<void> {
    await this.#copyOldBefore(Number.POSITIVE_INFINITY);
    await this.#flushBuffer();
    await new Promise<void>((resolve, reject) => this.#out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    if (this.#failure !== undefined) throw this.#failure;
    await rename(this.#temp, this.#path);
  }

  /** A failure before the end: OUTPUT stays as it was. */
  async discard(): Promise<void> {
    this.#out.destroy();
    await unlink(this.#temp).catch(() => undefined);
  }
}
