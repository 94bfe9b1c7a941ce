/**
 * `--resume OUTPUT`: which lines an earlier run already got a result for, and the file that receives this run's
 * records.
 *
 * Records reach OUTPUT as they complete: they are appended to it (one write per tick of the event loop, never held
 * in memory longer), so a run killed with SIGKILL loses at most the lines still in flight, and one stopped by
 * SIGINT, SIGTERM or SIGHUP loses nothing finished. During a run the file is the earlier records (in line order)
 * followed by this run's (in line order too); when the run ends, however it ends, the two are merged into one
 * record per line in line order — through a temporary file next to OUTPUT and one rename, so a reader never sees
 * half of it. A run killed before that merge leaves the two parts, which the next run reads as they are and merges
 * first. Each line keeps its first successful record, else its latest error.
 */
import { appendFileSync, closeSync, constants, createReadStream, openSync, unlinkSync, writeSync } from 'node:fs';
import { lstat, readdir, rename, truncate, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fsCause, kindOf } from '../config/destination.js';
import { OutputError, UsageError } from '../contract/errors.js';
import { inShard, type Shard } from '../options/batch-settings.js';
import { LineBitmap } from './line-bitmap.js';
import { readLineSpans } from './line-reader.js';
import type { RecordSink } from './scheduler.js';

const LINE_NUMBER = /^\{"line":(\d+)[,}]/;
/** Records are handed to the file at least this often (bytes), and at the end of every tick in any case. */
const WRITE_EVERY = 64 * 1024;

/**
 * Whether OUTPUT exists. Anything there that is not a regular file is refused before the batch starts: the output
 * is replaced by a rename at the end, which would turn /dev/null into a file or a symbolic link into a copy.
 */
async function exists(path: string): Promise<boolean> {
  try {
    const s = await lstat(path);
    if (s.isDirectory()) throw new UsageError(`--resume: ${path} is a directory, not a batch output file`);
    if (!s.isFile())
      throw new UsageError(
        `--resume: ${path} is ${kindOf(s)}, not a regular file; textgen replaces the file it resumes, so give the path of a regular file (or of one that does not exist yet)`,
      );
    return true;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new UsageError(`--resume: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** One record of the file: its line, whether it is a result, and where it is. */
interface RecordAt {
  line: number;
  ok: boolean;
}

function recordOf(text: string | undefined): RecordAt | undefined {
  if (text === undefined) return undefined;
  const m = LINE_NUMBER.exec(text);
  if (!m) return undefined;
  const line = Number(m[1]);
  if (!Number.isSafeInteger(line) || line < 1) return undefined;
  let record: { result?: unknown };
  try {
    record = JSON.parse(text) as { result?: unknown };
  } catch {
    // The truncated last line of a killed run, or a line that is not a record.
    return undefined;
  }
  return { line, ok: record.result !== undefined };
}

/** What an earlier output holds. */
export interface ResumeState {
  /** Lines of this shard with a successful record: they are skipped. */
  done: LineBitmap;
  /** The highest line any record is for (0 when none): more than the input has means another input's output. */
  lastLine: number;
  /** Byte ranges of the runs of ascending line numbers: one for a finished file, two after a killed run. */
  runs: Array<[start: number, end: number]>;
  /** The last line has no LF: a whole record (written by hand), or the half-written last line of a killed run. */
  tail: 'none' | 'record' | 'partial';
  /** Where the last line starts: a half-written one is cut off there before this run appends. */
  lastLineStart: number;
  exists: boolean;
}

/**
 * Reads the earlier output (streamed): its successful lines (of this shard), the runs of ascending line numbers, and
 * where its last whole line ends. A file that does not exist yet is an empty state, so CI can always pass --resume.
 * More than two runs means the file was not written by batch runs (they leave at most two) and is refused.
 */
export async function readResumeState(path: string, shard: Shard | undefined): Promise<ResumeState> {
  const state: ResumeState = {
    done: new LineBitmap(),
    lastLine: 0,
    runs: [],
    tail: 'none',
    lastLineStart: 0,
    exists: false,
  };
  if (!(await exists(path))) return state;
  state.exists = true;
  let offset = 0;
  let previous = 0;
  let runStart = 0;
  for await (const span of readLineSpans(createReadStream(path, { highWaterMark: 256 * 1024 }))) {
    const record = recordOf(span.text);
    if (record !== undefined) {
      if (record.line <= previous) {
        state.runs.push([runStart, offset]);
        runStart = offset;
        if (state.runs.length >= 2) {
          throw new UsageError(
            `--resume: ${path} is not in line order (line ${record.line} after line ${previous}); it was not written by a batch run`,
          );
        }
      }
      previous = record.line;
      state.lastLine = Math.max(state.lastLine, record.line);
      if (record.ok && inShard(record.line, shard)) state.done.add(record.line);
    }
    state.lastLineStart = offset;
    offset += span.bytes;
    if (!span.terminated) state.tail = record !== undefined ? 'record' : 'partial';
  }
  state.runs.push([runStart, offset]);
  return state;
}

/** The lines an earlier output has a successful record for (of this shard): they are skipped. */
export async function readDoneLines(path: string, shard: Shard | undefined): Promise<LineBitmap> {
  return (await readResumeState(path, shard)).done;
}

/** Temporary files of merges that a SIGKILL interrupted: `.OUTPUT.<pid>.tmp` whose process is gone. */
async function removeStaleTemps(path: string): Promise<void> {
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(name.slice(prefix.length, -'.tmp'.length));
    if (!Number.isSafeInteger(pid) || pid <= 0 || alive(pid)) continue;
    await unlink(join(dirname(path), name)).catch(() => undefined);
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The records of one run, in order, read from a byte range of the file. */
async function* recordsIn(
  path: string,
  [start, end]: [number, number],
): AsyncGenerator<{ record: RecordAt; text: string }> {
  if (end <= start) return;
  for await (const span of readLineSpans(createReadStream(path, { start, end: end - 1, highWaterMark: 256 * 1024 }))) {
    const record = recordOf(span.text);
    if (record !== undefined) yield { record, text: span.text as string };
  }
}

/**
 * Merges the runs of `path` (ascending line numbers each) into one record per line, in line order, and puts the
 * result in place of `path` with one rename. Of a line's records the first successful one is kept, else the last.
 */
async function mergeRuns(path: string, runs: Array<[number, number]>): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  // A second Ctrl-C (or a second SIGTERM) exits at once: the half-merged file must not be left behind.
  const cleanup = () => {
    try {
      unlinkSync(temp);
    } catch {
      // Already renamed, or never created.
    }
  };
  process.once('exit', cleanup);
  const fd = openSync(temp, 'w');
  try {
    const heads = runs.map((range) => recordsIn(path, range)[Symbol.asyncIterator]());
    const current = await Promise.all(heads.map((it) => it.next()));
    let pending = '';
    for (;;) {
      let line = Number.POSITIVE_INFINITY;
      for (const c of current) if (!c.done && c.value.record.line < line) line = c.value.record.line;
      if (line === Number.POSITIVE_INFINITY) break;
      let chosen: string | undefined;
      let chosenOk = false;
      for (let i = 0; i < current.length; i++) {
        // A run holds a line at most once; later runs come later in the file, so a later error wins over an earlier one.
        const c = current[i]!;
        if (c.done || c.value.record.line !== line) continue;
        if (!chosenOk) {
          chosen = c.value.text;
          chosenOk = c.value.record.ok;
        }
        current[i] = await heads[i]!.next();
      }
      pending += `${chosen}\n`;
      if (pending.length >= WRITE_EVERY) {
        writeSync(fd, pending);
        pending = '';
      }
    }
    if (pending !== '') writeSync(fd, pending);
    closeSync(fd);
    await rename(temp, path);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // Closed already.
    }
    cleanup();
    throw e;
  } finally {
    process.off('exit', cleanup);
  }
}

/** This run's records, appended to OUTPUT as they complete, and merged with the earlier ones at the end. */
export class ResumeFileSink implements RecordSink {
  readonly #path: string;
  readonly #fd: number;
  /** Where the earlier records end and this run's begin. */
  readonly #earlierBytes: number;
  #pending: string[] = [];
  #pendingBytes = 0;
  #flushScheduled: NodeJS.Immediate | undefined;
  #failure: unknown;
  #closed = false;

  private constructor(path: string, fd: number, earlierBytes: number) {
    this.#path = path;
    this.#fd = fd;
    this.#earlierBytes = earlierBytes;
  }

  /**
   * Prepares OUTPUT: leftovers of a killed run are cleaned up first (its temporary file removed, its two parts
   * merged, a half-written last line cut off), then the file is opened for appending.
   */
  static async open(path: string, state: ResumeState): Promise<ResumeFileSink> {
    await removeStaleTemps(path);
    let earlierBytes = 0;
    try {
      if (state.exists) {
        if (state.runs.length > 1) await mergeRuns(path, state.runs);
        else if (state.tail === 'partial') await truncate(path, state.lastLineStart);
        else if (state.tail === 'record') appendFileSync(path, '\n');
        earlierBytes = (await lstat(path)).size;
      }
      // O_NOFOLLOW: the file checked before the run is appended to, never a link swapped in since.
      const fd = openSync(
        path,
        constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
        0o666,
      );
      return new ResumeFileSink(path, fd, earlierBytes);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`--resume: cannot write ${path}: ${fsCause(e)}`);
    }
  }

  write(_line: number, record: string): void {
    if (this.#failure !== undefined) throw this.#failure;
    this.#pending.push(record);
    this.#pendingBytes += record.length;
    if (this.#pendingBytes >= WRITE_EVERY) this.#flush();
    else
      this.#flushScheduled ??= setImmediate(() => {
        try {
          this.#flush();
        } catch {
          // Kept in #failure: the next write, or finish, reports it (exit 7), not an uncaught exception.
        }
      });
  }

  /** Hands what has gathered to the file: synchronously, so a record written is in the file before the next tick. */
  #flush(): void {
    if (this.#flushScheduled !== undefined) clearImmediate(this.#flushScheduled);
    this.#flushScheduled = undefined;
    if (this.#pending.length === 0 || this.#closed) return;
    const chunk = Buffer.from(this.#pending.join(''), 'utf8');
    this.#pending = [];
    this.#pendingBytes = 0;
    try {
      for (let at = 0; at < chunk.length; ) at += writeSync(this.#fd, chunk, at);
    } catch (e) {
      // The records were paid for: a failure to keep them is exit 7, naming the file and the cause.
      this.#failure ??= new OutputError(`--resume: cannot write ${this.#path}: ${fsCause(e)}`, { cause: e });
      throw this.#failure;
    }
  }

  #close(): void {
    if (this.#closed) return;
    try {
      this.#flush();
    } finally {
      this.#closed = true;
      closeSync(this.#fd);
    }
  }

  /** Writes what is left and merges this run's records with the earlier ones, in line order. */
  async finish(): Promise<void> {
    this.#close();
    if (this.#failure !== undefined) throw this.#failure;
    try {
      const size = (await lstat(this.#path)).size;
      if (size > this.#earlierBytes && this.#earlierBytes > 0) {
        await mergeRuns(this.#path, [
          [0, this.#earlierBytes],
          [this.#earlierBytes, size],
        ]);
      }
    } catch (e) {
      if (e instanceof UsageError || e instanceof OutputError) throw e;
      throw new OutputError(`--resume: cannot write ${this.#path}: ${fsCause(e)}`, { cause: e });
    }
  }

  /** A failure before the end: what was appended stays (it is resumable as it is); the merge is left to the next run. */
  async discard(): Promise<void> {
    try {
      this.#close();
    } catch {
      // The failure is being reported already.
    }
  }
}
