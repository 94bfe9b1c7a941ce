/**
 * The batch flow shared by text-generate, complete and embed (docs/batch.md): open the input, read what an earlier
 * run already did (--resume), then either show the first request (--dry-run) or run every line through the scheduler
 * and write the records — to stdout, or merged into the --resume file — with a progress line on a terminal and a
 * summary on stderr. Returns the exit code: 0 all lines succeeded, 4 some failed, the stopping line's code with
 * --fail-fast or on an authentication failure, 130 on Ctrl-C.
 */
import type { Context } from '../context.js';
import { UsageError } from '../contract/errors.js';
import type { HttpRequestSpec } from '../contract/http.js';
import { countLines, openInput, readLines, type OpenedFile } from './line-reader.js';
import type { LineBitmap } from './line-bitmap.js';
import { progressWanted, startProgress } from './progress.js';
import { readResumeState, ResumeFileSink, type ResumeState } from './resume.js';
import { BatchScheduler, type BatchOutcome, type LineWork, type RecordSink, type SourceLine } from './scheduler.js';
import { inShard, type BatchSettings, type LineCollector, type Shard } from '../options/batch-settings.js';
import { ReaderGone, StdoutRecordSink } from './stdout-sink.js';

export interface BatchJob<P> extends LineWork<P> {
  /** Attempts after the first, per line (--retries). */
  retries: number;
  /** Called once before the first line: fetches credentials (a refused one stops the batch before any line). */
  begin(): Promise<void>;
  /** --dry-run: a parsed line's wire request (throws a UsageError for a bad line), and how to print it. */
  wireRequest(payload: P): HttpRequestSpec | Promise<HttpRequestSpec>;
  printRequest(spec: HttpRequestSpec): Promise<void>;
}

interface Counters {
  /** Lines of this shard skipped because the earlier output has their result. */
  skipped: number;
  /** Lines of the input read so far (all shards, blank ones too). */
  read: number;
}

const BLANK = /^\s*$/;

async function* sourceLines(
  lines: AsyncIterable<string | undefined>,
  shard: Shard | undefined,
  done: LineBitmap | undefined,
  counters: Counters,
): AsyncGenerator<SourceLine> {
  let line = 0;
  for await (const text of lines) {
    line++;
    counters.read = line;
    if (shard !== undefined && !inShard(line, shard)) continue;
    if (done?.has(line)) {
      counters.skipped++;
      continue;
    }
    // Longer than the cap: that line's record is an error, and the batch goes on.
    if (text === undefined) yield { line, text: '', tooLong: true };
    else if (!BLANK.test(text)) yield { line, text };
  }
}

/** A --resume file with records for lines the input does not have is the output of another input. */
function beyondInput(resume: string, source: string, state: ResumeState, lines: number): UsageError {
  const input = source === '-' ? 'stdin' : source;
  return new UsageError(
    `--resume: ${resume} holds a record for line ${state.lastLine}, but ${input} has ${plural(lines, 'line')}; it is the output of another input`,
    {
      hint: 'resume with the input file that output was written for, or give another --resume file',
    },
  );
}

/** Lines of a file with `lines` lines that belong to the shard. */
function linesInShard(lines: number, shard: Shard | undefined): number {
  if (shard === undefined) return lines;
  return lines >= shard.index ? Math.floor((lines - shard.index) / shard.count) + 1 : 0;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export async function runBatch<P>(ctx: Context, settings: BatchSettings, job: BatchJob<P>): Promise<number> {
  const fromStdin = settings.source === '-';
  // The output is checked (a regular file or none, no other user's link) and locked before the input is opened:
  // a second batch on the same --resume file is refused (exit 2) instead of both appending to it. Its state is
  // read under the lock, so it is what the last run left.
  let lock: { release(): void } | undefined;
  if (settings.resume !== undefined) {
    const { checkDestination, makeDestinationDir } = await import('../config/destination.js');
    const dest = await checkDestination('--resume', settings.resume, { cwd: ctx.cwd });
    if (!ctx.globals.dryRun) {
      // The lock lives next to the output: a directory that does not exist yet is created now (0700).
      await makeDestinationDir(dest);
      lock = await (await import('../config/file-lock.js')).holdFileLock(dest.target, settings.resume);
    }
  }
  let file: OpenedFile | undefined;
  try {
    if (!fromStdin) file = await openInput('--batch', settings.source);
    const state = settings.resume !== undefined ? await readResumeState(settings.resume, settings.shard) : undefined;
    if (state !== undefined && state.lastLine > 0 && !fromStdin) {
      const lines = await countLines(settings.source);
      if (state.lastLine > lines) throw beyondInput(settings.resume as string, settings.source, state, lines);
    }
    const counters: Counters = { skipped: 0, read: 0 };
    const stream = (file?.stream ?? ctx.stdin) as AsyncIterable<Buffer | string>;
    const source = sourceLines(readLines(stream), settings.shard, state?.done, counters);
    if (settings.collect !== undefined) return await collect(ctx, job, source, settings.collect);
    if (ctx.globals.dryRun) return await dryRun(ctx, job, source);
    await job.begin();
    return await execute(ctx, settings, job, source, counters, state);
  } finally {
    lock?.release();
    await file?.close();
    // Stopped or interrupted before the end of stdin: an open stdin would keep the process alive.
    if (fromStdin) (ctx.stdin as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  }
}

/** `batch submit`: every line checked and handed over with its request (or its error); nothing is sent. */
async function collect<P>(
  ctx: Context,
  job: BatchJob<P>,
  source: AsyncIterable<SourceLine>,
  to: LineCollector,
): Promise<number> {
  let invalid = 0;
  for await (const { line, text, tooLong } of source) {
    if (ctx.signal.aborted) return 130;
    try {
      if (tooLong) throw new UsageError('the line is longer than 16 MiB');
      const parsed = job.parse(text, line);
      to.line(line, text, parsed.idJson, await job.wireRequest(parsed.payload));
    } catch (e) {
      invalid++;
      to.invalid(line, (e as Error).message);
    }
  }
  return invalid > 0 ? 4 : 0;
}

async function dryRun<P>(ctx: Context, job: BatchJob<P>, source: AsyncIterable<SourceLine>): Promise<number> {
  let valid = 0;
  const invalid: number[] = [];
  let invalidCount = 0;
  for await (const { line, text } of source) {
    if (ctx.signal.aborted) return 130;
    try {
      const spec = await job.wireRequest(job.parse(text, line).payload);
      if (valid === 0) await job.printRequest(spec);
      valid++;
    } catch (e) {
      invalidCount++;
      if (invalid.length < 10) invalid.push(line);
      if (invalidCount === 1) ctx.reporter.warn(`line ${line}: ${(e as Error).message}`);
    }
  }
  const lines = invalid.join(', ') + (invalidCount > invalid.length ? ', …' : '');
  const bad =
    invalidCount > 0
      ? `; ${plural(invalidCount, 'line')} would fail before sending (line${invalidCount === 1 ? '' : 's'} ${lines})`
      : '';
  ctx.stderr.write(
    `dry run: ${plural(valid, 'request')} would be sent, one per line${valid > 0 ? ' (the first is shown)' : ''}${bad}\n`,
  );
  return invalidCount > 0 ? 4 : 0;
}

async function execute<P>(
  ctx: Context,
  settings: BatchSettings,
  job: BatchJob<P>,
  source: AsyncIterable<SourceLine>,
  counters: Counters,
  state: ResumeState | undefined,
): Promise<number> {
  const done = state?.done;
  const resumeSink =
    settings.resume !== undefined ? await ResumeFileSink.open(settings.resume, state as ResumeState) : undefined;
  const stdoutSink = resumeSink === undefined ? new StdoutRecordSink(ctx.out) : undefined;
  const sink = (resumeSink ?? stdoutSink) as StdoutRecordSink | ResumeFileSink;
  // A service may echo a credential back in an error (or even a result): records mask every known secret.
  const redacting: RecordSink = { write: (line, record) => sink.write(line, ctx.secrets.redact(record)) };
  const scheduler = new BatchScheduler(job, redacting, {
    concurrency: settings.concurrency,
    retries: job.retries,
    failFast: settings.failFast,
    signal: ctx.signal,
    now: ctx.now,
    notice: (line) => ctx.reporter.info(line),
  });
  let total: number | undefined;
  const progress = startProgress(ctx, scheduler.stats, () => total);
  if (progressWanted(ctx) && settings.source !== '-') {
    // The ETA needs the number of lines: one fast pass over the file, alongside the batch.
    countLines(settings.source, ctx.signal).then(
      (n) => {
        total = Math.max(0, linesInShard(n, settings.shard) - (done?.size ?? 0));
      },
      () => undefined,
    );
  }
  const started = ctx.now();
  let outcome: BatchOutcome;
  try {
    outcome = await scheduler.run(source);
  } catch (e) {
    progress.stop();
    // Nobody reads the records any more: stop quietly, as a pipe's writer does; what was written stands.
    if (e instanceof ReaderGone) return scheduler.stats.failed > 0 ? 4 : 0;
    // The records written so far still count: the resume file is merged and put in place.
    await resumeSink?.finish().catch(() => resumeSink.discard());
    throw e;
  }
  await (resumeSink ?? stdoutSink)?.finish();
  progress.stop();
  writeSummary(ctx, settings, outcome, counters, ctx.now() - started);
  // stdin could not be counted before the run: an output for more lines than it had is found out at its end.
  if (
    state !== undefined &&
    settings.source === '-' &&
    !outcome.interrupted &&
    outcome.stoppedAt === undefined &&
    state.lastLine > counters.read
  ) {
    throw beyondInput(settings.resume as string, settings.source, state, counters.read);
  }
  if (outcome.interrupted) return 130;
  if (outcome.stoppedAt) return outcome.stoppedAt.exitCode;
  return outcome.failed > 0 ? 4 : 0;
}

function writeSummary(
  ctx: Context,
  settings: BatchSettings,
  o: BatchOutcome,
  counters: Counters,
  elapsedMs: number,
): void {
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? o.written / seconds : 0;
  const parts = [`${plural(o.written, 'line')} processed`, `${o.succeeded} succeeded`, `${o.failed} failed`];
  parts.push(settings.resume !== undefined ? `${counters.skipped} skipped (done in ${settings.resume})` : '0 skipped');
  let summary = `batch: ${parts.join(', ')} in ${seconds.toFixed(1)} s (${rate.toFixed(rate < 10 ? 1 : 0)} lines/s)`;
  if (o.throttled > 0) summary += `; ${plural(o.throttled, 'answer')} 429, concurrency lowered (now ${o.limit})`;
  if (o.interrupted) {
    const again =
      settings.resume !== undefined
        ? `run the same command again to finish`
        : 'write the output to a file and finish it with --resume FILE';
    summary += `\nbatch interrupted: every record before the first unfinished line was written; ${again}`;
  } else if (o.stoppedAt) {
    summary += `\nbatch stopped at line ${o.stoppedAt.line} (exit code ${o.stoppedAt.exitCode})${o.stoppedAt.exitCode === 3 ? ': authentication failed, every other line would fail too' : ''}`;
  }
  ctx.reporter.info(summary);
}
