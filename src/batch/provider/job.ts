/**
 * A provider batch job: one batch id, or the parts a state file tracks (src/batch/provider/state.ts). `status`,
 * `wait`, `cancel` and `results` work on either; a job's state file is brought up to date after every answer, so a
 * kill at any moment loses nothing the next command cannot ask again.
 */
import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import type { BatchScope, ProviderBatch } from '../../contract/adapter.js';
import { Interrupted, UsageError } from '../../contract/errors.js';
import type { BatchService } from '../../call/batch-calls.js';
import { type JobState, type PartState, readJobState, writeJobState } from './state.js';

/** What `ID|--state FILE` names. */
export type JobRef = { kind: 'id'; id: string } | { kind: 'state'; path: string; shown: string; state: JobState };

/** Statuses after which a batch no longer changes. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'expired', 'cancelled']);

export function isFinal(status: string | undefined): boolean {
  return status !== undefined && FINAL_STATUSES.has(status);
}

/** `ID` or `--state FILE` (exactly one). */
export async function jobRefOf(ctx: Context, id: string | undefined, state: string | undefined): Promise<JobRef> {
  if (id !== undefined && state !== undefined) throw new UsageError('give a batch ID or --state FILE, not both');
  if (id !== undefined) {
    if (id.trim() === '') throw new UsageError('the batch ID is empty');
    return { kind: 'id', id };
  }
  if (state === undefined) throw new UsageError('give a batch ID, or --state FILE (the state file batch submit wrote)');
  const path = resolve(ctx.cwd, state);
  const read = await readJobState(path, state);
  if (read === undefined)
    throw new UsageError(`no state file ${state}`, { hint: 'batch submit writes it (default: INPUT.batch.json)' });
  return { kind: 'state', path, shown: state, state: read };
}

/** The scope a state file recorded, under the flags given now. */
export function scopeFor(ref: JobRef, flags: BatchScope): BatchScope {
  if (Object.keys(flags).length > 0) return flags;
  return ref.kind === 'state' ? (ref.state.scope ?? {}) : {};
}

/** A job's submitted parts, or the one batch an ID names (as a part of its own). */
export function partsOf(ref: JobRef): PartState[] {
  if (ref.kind === 'id') return [{ index: 1, firstLine: 1, lastLine: 0, lines: 0, bytes: 0, batchId: ref.id }];
  return ref.state.parts.filter((p) => p.batchId !== undefined);
}

/** Records what the service said about a part. */
export function notePart(part: PartState, batch: ProviderBatch): void {
  part.status = batch.status;
  part.counts = batch.request_counts;
  if (batch.output_file_id !== undefined) part.outputFileId = batch.output_file_id;
  if (batch.error_file_id !== undefined) part.errorFileId = batch.error_file_id;
}

export async function saveRef(ref: JobRef): Promise<void> {
  if (ref.kind === 'state') await writeJobState(ref.path, ref.state);
}

/** Every part asked once; the state file written with what came back. */
export async function refresh(service: BatchService, ref: JobRef, parts: PartState[]): Promise<ProviderBatch[]> {
  const out: ProviderBatch[] = [];
  for (const part of parts) {
    const batch = await service.batch(service.op.retrieve(service.profile, service.scope, part.batchId as string));
    notePart(part, batch);
    out.push(batch);
  }
  await saveRef(ref);
  return out;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done, fail) => {
    if (signal.aborted) return fail(new Interrupted());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      done();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      fail(new Interrupted());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const ERASE = '\r\u001b[2K';

function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** `batch: 1200/50000 done · 3 failed · in_progress ×2 · ETA 2m10s`. */
export function progressLine(batches: readonly ProviderBatch[], elapsedMs: number, startDone: number): string {
  let total = 0;
  let done = 0;
  let failed = 0;
  const statuses = new Map<string, number>();
  for (const b of batches) {
    total += b.request_counts.total;
    done += b.request_counts.completed + b.request_counts.failed;
    failed += b.request_counts.failed;
    statuses.set(b.status, (statuses.get(b.status) ?? 0) + 1);
  }
  const parts = [`batch: ${done}/${total || '?'} done`, `${failed} failed`];
  parts.push([...statuses].map(([s, n]) => (n > 1 ? `${s} ×${n}` : s)).join(', '));
  const rate = elapsedMs > 0 ? (done - startDone) / (elapsedMs / 1000) : 0;
  if (rate > 0 && total > 0) parts.push(`ETA ${duration((total - done) / rate)}`);
  return parts.join(' · ');
}

/**
 * Polls until every part is final: at once, then after 0.5 s, doubling up to `maxIntervalMs`. On a terminal (not CI,
 * not -q) a progress line is redrawn after each answer. Ctrl-C stops waiting (the batches run on; exit 130).
 */
export async function waitFor(
  ctx: Context,
  service: BatchService,
  ref: JobRef,
  maxIntervalMs: number,
): Promise<ProviderBatch[]> {
  const parts = partsOf(ref);
  const { progressWanted } = await import('../progress.js');
  const show = progressWanted(ctx);
  const started = ctx.now();
  let startDone: number | undefined;
  let delay = 500;
  let drawn = false;
  try {
    for (;;) {
      const batches = await refresh(service, ref, parts);
      const doneNow = batches.reduce((n, b) => n + b.request_counts.completed + b.request_counts.failed, 0);
      startDone ??= doneNow;
      if (show) {
        ctx.stderr.write(`${ERASE}${progressLine(batches, ctx.now() - started, startDone)}`);
        drawn = true;
      }
      if (batches.every((b) => isFinal(b.status))) return batches;
      await sleep(delay, ctx.signal);
      delay = Math.min(delay * 2, maxIntervalMs);
    }
  } finally {
    if (drawn) ctx.stderr.write(ERASE);
  }
}
