/**
 * The handlers of `batch submit|status|wait|results|cancel|list` (the command files hold only their specs, so
 * `--help` loads none of this). docs/batch.md "At the provider".
 */
import { open, rename, rm } from 'node:fs/promises';
import type { Context } from '../../context.js';
import type { BatchEndpoint, BatchScope, ProviderBatch } from '../../contract/adapter.js';
import { Interrupted, OutputError, UsageError } from '../../contract/errors.js';
import { parseBooleanFlag } from '../../options/flag-values.js';
import { parseIntegerFlag } from '../../options/integer-flag.js';
import { BATCH_SCOPE_KEYS } from '../../options/batch-job-flag-specs.js';
import { optionKey } from '../../command.js';
import { batchService, type BatchService } from '../../call/batch-calls.js';
import { compileResultQuery } from '../json-query.js';
import { isProviderLine, endpointOfLineUrl } from '../provider-line.js';
import { resultDecoder } from './decode.js';
import { isFinal, type JobRef, jobRefOf, partsOf, refresh, saveRef, scopeFor, waitFor, notePart } from './job.js';
import { endpointOfBatch, type RecordOut, type ResultStats, writeJobResults } from './results.js';
import { submitJob } from './submit.js';

/** The options as commander gives them: the scope flags are read through BATCH_SCOPE_KEYS. */
type ScopeFlags = Record<string, unknown>;
interface JobFlags {
  args: string[];
  state?: string;
}
type Bool = string | boolean | undefined;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : word.endsWith('h') ? 'es' : 's'}`;
}

function scopeOfFlags(ctx: Context, flags: ScopeFlags): BatchScope {
  const given = BATCH_SCOPE_KEYS.filter((k) => typeof flags[optionKey(k.flag)] === 'string');
  if (given.length > 1) throw new UsageError(`give ${given.map((k) => k.flag).join(' or ')}, not both`);
  const scope: Record<string, string> = {};
  for (const k of given) {
    const value = flags[optionKey(k.flag)] as string;
    scope[k.entry] = value;
    // The lines' own bodies carry the scope too: a flag acts as its environment variable does (over the profile)
    // for the request each line is built from, and the other scope's variable no longer applies.
    for (const other of BATCH_SCOPE_KEYS) delete ctx.env[other.env];
    ctx.env[k.env] = value;
  }
  return scope;
}

function intervalMs(value: string | undefined): number {
  if (value === undefined) return 30_000;
  const n = Number(value.trim());
  if (!(Number.isFinite(n) && n >= 0.5 && n <= 3600))
    throw new UsageError(`--interval must be a number of seconds from 0.5 to 3600, got ${JSON.stringify(value)}`);
  return n * 1000;
}

function parseMetadata(entries: readonly string[] | undefined): Record<string, string> | undefined {
  if (entries === undefined || entries.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const e of entries) {
    const at = e.indexOf('=');
    if (at <= 0) throw new UsageError(`--metadata must be KEY=VALUE, got ${JSON.stringify(e)}`);
    const key = e.slice(0, at);
    if (key === '__proto__' || key === 'constructor' || key === 'prototype')
      throw new UsageError(`--metadata: "${key}" cannot be a key`);
    out[key] = e.slice(at + 1);
  }
  if (Object.keys(out).length > 16) throw new UsageError('--metadata takes at most 16 entries (the services keep 16)');
  return out;
}

/** The endpoint a provider-format file names on its first line, when --endpoint is not given. */
async function endpointOfFile(ctx: Context, file: string): Promise<BatchEndpoint | undefined> {
  const { openInput, readLines } = await import('../line-reader.js');
  const { resolve } = await import('node:path');
  const opened = await openInput('submit', resolve(ctx.cwd, file));
  try {
    for await (const text of readLines(opened.stream as AsyncIterable<Buffer>)) {
      if (text === undefined || text.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(text);
        if (isProviderLine(value) && typeof value.url === 'string') return endpointOfLineUrl(value.url);
      } catch {
        // The line's error is reported by the check of every line.
      }
      return undefined;
    }
    return undefined;
  } finally {
    await opened.close();
  }
}

/** Records to stdout, or to --out through a temporary file renamed into place once complete. */
async function recordOut(ctx: Context, out: string | undefined): Promise<RecordOut> {
  if (out === undefined) {
    const { StdoutRecordSink } = await import('../stdout-sink.js');
    const sink = new StdoutRecordSink(ctx.out);
    return { write: (t) => sink.write(0, t), finish: () => sink.finish(), discard: async () => undefined };
  }
  const { checkDestination, makeDestinationDir } = await import('../../config/destination.js');
  const dest = await checkDestination('--out', out, { cwd: ctx.cwd });
  await makeDestinationDir(dest);
  const temp = `${dest.target}.${process.pid}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  let buffer = '';
  const fail = (e: unknown) => new OutputError(`cannot write ${out}: ${(e as Error).message}`);
  const flush = async () => {
    if (buffer === '') return;
    const text = buffer;
    buffer = '';
    await handle.write(text).catch((e: unknown) => {
      throw fail(e);
    });
  };
  return {
    async write(text) {
      buffer += text;
      if (buffer.length >= 1 << 20) await flush();
    },
    async finish() {
      await flush();
      await handle.close();
      await rename(temp, dest.target).catch((e: unknown) => {
        throw fail(e);
      });
    },
    async discard() {
      await handle.close().catch(() => undefined);
      await rm(temp, { force: true });
    },
  };
}

function summary(ctx: Context, stats: ResultStats, batches: number, out: string | undefined): void {
  const parts = [plural(stats.records, 'record'), `${stats.succeeded} succeeded`, `${stats.failed} failed`];
  let line = `batch results: ${parts.join(', ')} (${plural(batches, 'batch')})`;
  if (stats.notRun > 0) line += `; ${stats.notRun} never ran`;
  if (stats.duplicates > 0) line += `; ${stats.duplicates} repeated answers dropped`;
  if (out !== undefined) line += `; written to ${out}`;
  ctx.reporter.info(line);
}

/** Waits (unless every batch has ended), downloads and writes the records; the exit code. */
async function fetchResults(
  ctx: Context,
  service: BatchService,
  ref: JobRef,
  o: { out?: string | undefined; raw: boolean; input?: string | undefined; intervalMs: number },
): Promise<number> {
  const batches = await waitFor(ctx, service, ref, o.intervalMs);
  const first = batches[0] as ProviderBatch;
  const endpoint = ref.kind === 'state' ? ref.state.endpoint : o.raw ? 'completions' : endpointOfBatch(service, first);
  const model = ref.kind === 'state' ? ref.state.model : '';
  const decode = await resultDecoder(
    service.profile,
    endpoint,
    model,
    o.raw,
    await compileResultQuery(ctx.output().jmes),
  );
  let input: string | undefined;
  if (o.input !== undefined) input = (await import('node:path')).resolve(ctx.cwd, o.input);
  const out = await recordOut(ctx, o.out);
  let stats: ResultStats;
  try {
    stats = await writeJobResults(ctx, service, ref, batches, decode, out, input);
  } catch (e) {
    await out.discard();
    const { ReaderGone } = await import('../stdout-sink.js');
    if (e instanceof ReaderGone) return 0;
    throw e;
  }
  summary(ctx, stats, batches.length, o.out);
  return stats.failed > 0 ? 4 : 0;
}

export async function runSubmit(
  options: ScopeFlags & {
    args: string[];
    endpoint?: string;
    model?: string;
    window?: string;
    metadata?: string[];
    state?: string;
    maxLines?: string;
    maxBytes?: string;
    wait?: Bool;
    interval?: string;
    out?: string;
    raw?: Bool;
  },
  ctx: Context,
): Promise<number> {
  const file = options.args[0] as string;
  if (file === '' || file === '-')
    throw new UsageError('batch submit needs a JSONL file (stdin cannot be split and resumed)');
  const scope = scopeOfFlags(ctx, options);
  const wait = parseBooleanFlag('--wait', options.wait) === true;
  const raw = parseBooleanFlag('--raw', options.raw) === true;
  if (!wait && (options.out !== undefined || raw))
    throw new UsageError('--out and --raw work with --wait (or with batch results)');
  const interval = intervalMs(options.interval);
  const metadata = parseMetadata(options.metadata);
  const maxLines =
    options.maxLines === undefined ? undefined : parseIntegerFlag('--max-lines', options.maxLines, { min: 1 });
  const maxBytes =
    options.maxBytes === undefined ? undefined : parseIntegerFlag('--max-bytes', options.maxBytes, { min: 64 });
  const model = options.model === '' ? undefined : options.model;
  const endpoint =
    (options.endpoint as BatchEndpoint | undefined) ?? (await endpointOfFile(ctx, file)) ?? 'completions';
  const service = await batchService(ctx, scope);
  const submitted = await submitJob(ctx, service, {
    input: file,
    endpoint,
    model,
    window: options.window ?? '24h',
    ...(metadata !== undefined ? { metadata } : {}),
    ...(options.state !== undefined ? { state: options.state } : {}),
    ...(maxLines !== undefined ? { maxLines } : {}),
    ...(maxBytes !== undefined ? { maxBytes } : {}),
    scope,
  });
  const { state, stateShown } = submitted;
  ctx.reporter.info(
    `batch submit: ${plural(
      state.parts.reduce((n, p) => n + p.lines, 0),
      'request',
    )} in ${plural(state.parts.length, 'batch')}; state in ${stateShown}`,
  );
  const ref: JobRef = { kind: 'state', path: submitted.statePath, shown: stateShown, state };
  if (wait) return fetchResults(ctx, service, ref, { out: options.out, raw, intervalMs: interval });
  const batches = submitted.batches;
  const format = ctx.output().format;
  if (format === 'text' && !ctx.output().jmes) {
    ctx.out.text(
      `${partsOf(ref)
        .map((p) => p.batchId)
        .join('\n')}\n`,
    );
    return 0;
  }
  const { writeResult } = await import('../../flows/write-result.js');
  const value = batches.length === 1 ? batches[0]?.raw : batches.map((b) => b.raw);
  await writeResult(ctx, format, value, () => '');
  return 0;
}

export async function runStatus(options: JobFlags & ScopeFlags, ctx: Context): Promise<number> {
  const ref = await jobRefOf(ctx, options.args[0], options.state);
  const service = await batchService(ctx, scopeFor(ref, scopeOfFlags(ctx, options)));
  const batches = await refresh(service, ref, partsOf(ref));
  const format = ctx.output().format;
  const value =
    ref.kind === 'id'
      ? batches[0]?.raw
      : { state: ref.shown, input: ref.state.input, batches: batches.map((b) => b.raw) };
  const { writeResult } = await import('../../flows/write-result.js');
  await writeResult(ctx, format, value, () => statusText(ref, batches));
  return 0;
}

function statusText(ref: JobRef, batches: readonly ProviderBatch[]): string {
  const parts = partsOf(ref);
  const rows = batches.map((b, i) => {
    const c = b.request_counts;
    const lines = ref.kind === 'state' ? `  lines ${parts[i]?.firstLine}–${parts[i]?.lastLine}` : '';
    const errors = b.errors !== undefined ? `  (${b.errors.slice(0, 3).join('; ')})` : '';
    return `${b.id}  ${b.status}  ${c.completed + c.failed}/${c.total} done, ${c.failed} failed${lines}${errors}`;
  });
  if (ref.kind === 'id') return `${rows.join('\n')}\n`;
  const total = batches.reduce((n, b) => n + b.request_counts.total, 0);
  const done = batches.reduce((n, b) => n + b.request_counts.completed + b.request_counts.failed, 0);
  const failed = batches.reduce((n, b) => n + b.request_counts.failed, 0);
  const head = `job ${ref.state.input} (${ref.shown}): ${batches.length} ${batches.length === 1 ? 'batch' : 'batches'}, ${done}/${total} done, ${failed} failed`;
  return `${head}\n${rows.join('\n')}\n`;
}

export async function runWait(options: JobFlags & ScopeFlags & { interval?: string }, ctx: Context): Promise<number> {
  const ref = await jobRefOf(ctx, options.args[0], options.state);
  const interval = intervalMs(options.interval);
  const service = await batchService(ctx, scopeFor(ref, scopeOfFlags(ctx, options)));
  const batches = await waitFor(ctx, service, ref, interval);
  ctx.reporter.info(statusText(ref, batches).trimEnd());
  return batches.every((b) => b.status === 'completed') ? 0 : 4;
}

export async function runResults(
  options: JobFlags & ScopeFlags & { out?: string; raw?: Bool; input?: string; interval?: string },
  ctx: Context,
): Promise<number> {
  const ref = await jobRefOf(ctx, options.args[0], options.state);
  if (ref.kind === 'state' && options.input !== undefined)
    throw new UsageError('--input works with a batch ID; a state file names its input itself');
  const raw = parseBooleanFlag('--raw', options.raw) === true;
  const interval = intervalMs(options.interval);
  const service = await batchService(ctx, scopeFor(ref, scopeOfFlags(ctx, options)));
  return fetchResults(ctx, service, ref, { out: options.out, raw, input: options.input, intervalMs: interval });
}

export async function runCancel(options: JobFlags & ScopeFlags, ctx: Context): Promise<number> {
  const ref = await jobRefOf(ctx, options.args[0], options.state);
  const service = await batchService(ctx, scopeFor(ref, scopeOfFlags(ctx, options)));
  const out: ProviderBatch[] = [];
  for (const part of partsOf(ref)) {
    if (ctx.signal.aborted) throw new Interrupted();
    if (ref.kind === 'state' && isFinal(part.status)) continue;
    const batch = await service.batch(service.op.cancel(service.profile, service.scope, part.batchId as string));
    notePart(part, batch);
    await saveRef(ref);
    out.push(batch);
  }
  if (out.length === 0) ctx.reporter.info('batch cancel: every batch of the job had already ended; nothing to cancel');
  const format = ctx.output().format;
  const { writeResult } = await import('../../flows/write-result.js');
  await writeResult(ctx, format, ref.kind === 'id' ? out[0]?.raw : out.map((b) => b.raw), () =>
    out.map((b) => `${b.id}  ${b.status}\n`).join(''),
  );
  return 0;
}

export async function runList(
  options: ScopeFlags & { limit?: string; after?: string; all?: Bool },
  ctx: Context,
): Promise<number> {
  const limit = options.limit === undefined ? 20 : parseIntegerFlag('--limit', options.limit, { min: 1, max: 100 });
  const all = parseBooleanFlag('--all', options.all) === true;
  const service = await batchService(ctx, scopeOfFlags(ctx, options));
  const batches: ProviderBatch[] = [];
  let after = options.after;
  let next: string | undefined;
  for (;;) {
    if (ctx.signal.aborted) throw new Interrupted();
    const body = await service.json(
      service.op.list(service.profile, service.scope, { limit, ...(after !== undefined ? { after } : {}) }),
    );
    const page = service.op.parsePage(body);
    batches.push(...page.batches);
    next = page.next;
    if (!all || next === undefined || page.batches.length === 0) break;
    after = next;
  }
  const format = ctx.output().format;
  const { writeResult } = await import('../../flows/write-result.js');
  const { renderTable } = await import('../../output/text-table.js');
  await writeResult(
    ctx,
    format,
    batches.map((b) => b.raw),
    () =>
      renderTable(
        ['ID', 'STATUS', 'ENDPOINT', 'CREATED', 'DONE', 'FAILED'],
        batches.map((b) => [
          b.id,
          b.status,
          b.endpoint ?? '',
          b.created_at !== undefined ? new Date(b.created_at * 1000).toISOString().slice(0, 19).replace('T', ' ') : '',
          `${b.request_counts.completed + b.request_counts.failed}/${b.request_counts.total}`,
          String(b.request_counts.failed),
        ]),
      ),
  );
  if (next !== undefined && !all) ctx.reporter.info(`batch list: more batches: --after ${next} (or --all)`);
  return 0;
}
