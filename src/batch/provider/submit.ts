/**
 * `batch submit FILE`: check every line (nothing is uploaded when one would fail), split the provider lines into
 * parts within the service's limits (lines, bytes), write the plan to the state file, then per part upload the file
 * and create the batch, writing the state after each step. A state that already holds every part's batch refuses a
 * second submit (it would be paid twice); one a kill left half done is carried on (the parts already created are
 * not created again).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { Context } from '../../context.js';
import type { BatchEndpoint, BatchScope, ProviderBatch } from '../../contract/adapter.js';
import { UsageError } from '../../contract/errors.js';
import type { BatchService } from '../../call/batch-calls.js';
import { convertInput, type ConvertedLine } from './convert.js';
import { notePart } from './job.js';
import { defaultStatePath, type JobState, type PartState, readJobState, writeJobState } from './state.js';

export interface SubmitOptions {
  /** The input as given. */
  input: string;
  endpoint: BatchEndpoint;
  model: string | undefined;
  window: string;
  metadata?: Record<string, string>;
  /** The state file as given, when given. */
  state?: string;
  maxLines?: number;
  maxBytes?: number;
  scope: BatchScope;
}

export interface Submitted {
  statePath: string;
  stateShown: string;
  state: JobState;
  batches: ProviderBatch[];
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : word.endsWith('h') ? 'es' : 's'}`;
}

/** Consecutive runs of lines within both limits. */
export function splitLines(lines: readonly ConvertedLine[], maxLines: number, maxBytes: number): ConvertedLine[][] {
  const parts: ConvertedLine[][] = [];
  let current: ConvertedLine[] = [];
  let bytes = 0;
  for (const l of lines) {
    const size = Buffer.byteLength(l.text) + 1;
    if (current.length > 0 && (current.length >= maxLines || bytes + size > maxBytes)) {
      parts.push(current);
      current = [];
      bytes = 0;
    }
    current.push(l);
    bytes += size;
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

function alreadySubmitted(shown: string, input: string, state: JobState): UsageError {
  const ids = state.parts.map((p) => p.batchId).filter((id) => id !== undefined);
  return new UsageError(
    `${input} was already submitted: ${shown} holds ${plural(ids.length, 'batch')} (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''}); submitting it again would pay for it twice`,
    {
      hint: `follow it with "textgen batch wait --state ${shown}" and "textgen batch results --state ${shown}"; to submit it anew, give another --state FILE or delete ${shown}`,
    },
  );
}

export async function submitJob(ctx: Context, service: BatchService, o: SubmitOptions): Promise<Submitted> {
  const input = resolve(ctx.cwd, o.input);
  let size: number;
  try {
    const s = await stat(input);
    if (!s.isFile()) throw new UsageError(`${o.input} is not a regular file`);
    size = s.size;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot read ${o.input}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const stateShown = o.state ?? defaultStatePath(o.input);
  const statePath = resolve(ctx.cwd, stateShown);
  const { holdFileLock } = await import('../../config/file-lock.js');
  const lock = await holdFileLock(statePath, stateShown);
  try {
    const digest = await sha256(input);
    const existing = await readJobState(statePath, stateShown);
    const started = existing?.parts.some((p) => p.batchId !== undefined || p.inputFileId !== undefined) === true;
    if (existing !== undefined && started) {
      const complete = existing.parts.every((p) => p.batchId !== undefined);
      if (complete || existing.inputSha256 !== digest || existing.profile !== service.profile.name)
        throw alreadySubmitted(stateShown, o.input, existing);
    }
    const { op, profile } = service;
    const maxLines = Math.min(op.limits.maxLines, o.maxLines ?? Number.POSITIVE_INFINITY);
    const maxBytes = Math.min(op.limits.maxBytes, o.maxBytes ?? Number.POSITIVE_INFINITY);
    if (!op.windows.includes(o.window))
      throw new UsageError(
        `--window must be one of ${op.windows.join(', ')} for ${service.callee.displayName}, got ${o.window}`,
      );

    const conversion = await convertInput(ctx, o.input, o.endpoint, o.model, op, profile);
    if (ctx.signal.aborted) throw new (await import('../../contract/errors.js')).Interrupted();
    for (const l of conversion.lines) {
      if (Buffer.byteLength(l.text) + 1 > maxBytes)
        conversion.invalid.push({
          line: l.line,
          message: `the line is ${Buffer.byteLength(l.text) + 1} bytes, over the ${maxBytes}-byte limit of one batch file`,
        });
    }
    if (conversion.invalid.length > 0) {
      conversion.invalid.sort((a, b) => a.line - b.line);
      for (const bad of conversion.invalid.slice(0, 10)) ctx.reporter.warn(`line ${bad.line}: ${bad.message}`);
      const lines = conversion.invalid
        .slice(0, 10)
        .map((b) => b.line)
        .join(', ');
      throw new UsageError(
        `${plural(conversion.invalid.length, 'line')} of ${o.input} would fail (line${conversion.invalid.length === 1 ? '' : 's'} ${lines}${conversion.invalid.length > 10 ? ', …' : ''}): nothing was uploaded`,
        { hint: 'fix those lines (textgen … --batch FILE --dry-run lists them too), then submit again' },
      );
    }
    if (conversion.lines.length === 0) throw new UsageError(`${o.input} has no lines to submit`);

    const chunks = splitLines(conversion.lines, maxLines, maxBytes);
    const plan: PartState[] = chunks.map((c, i) => ({
      index: i + 1,
      firstLine: c[0]!.line,
      lastLine: c.at(-1)!.line,
      lines: c.length,
      bytes: c.reduce((n, l) => n + Buffer.byteLength(l.text) + 1, 0),
    }));
    let state: JobState;
    if (existing !== undefined && started) {
      const same =
        existing.parts.length === plan.length &&
        existing.parts.every((p, i) => p.firstLine === plan[i]!.firstLine && p.lastLine === plan[i]!.lastLine);
      if (!same) throw alreadySubmitted(stateShown, o.input, existing);
      state = existing;
      ctx.reporter.info(`batch submit: carrying on the submit ${stateShown} recorded (a run stopped halfway)`);
    } else {
      state = {
        kind: 'textgen-provider-batch',
        version: 1,
        profile: profile.name,
        provider: profile.provider,
        input,
        inputBytes: size,
        inputSha256: digest,
        endpoint: o.endpoint,
        model: o.model ?? profile.defaults.model ?? '',
        window: o.window,
        ...(o.metadata !== undefined ? { metadata: o.metadata } : {}),
        ...(Object.keys(o.scope).length > 0 ? { scope: o.scope } : {}),
        createdAt: new Date(ctx.now()).toISOString(),
        parts: plan,
      };
      // The plan is on disk before anything is paid for: a kill from here on is carried on, never repeated.
      await writeJobState(statePath, state);
    }
    const batches: ProviderBatch[] = [];
    const name = basename(o.input).replace(/\.jsonl?$/i, '');
    for (const part of state.parts) {
      if (part.batchId !== undefined) continue;
      if (ctx.signal.aborted) throw new (await import('../../contract/errors.js')).Interrupted();
      const content = `${chunks[part.index - 1]!.map((l) => l.text).join('\n')}\n`;
      if (part.inputFileId === undefined) {
        const filename =
          state.parts.length === 1 ? `${name}.jsonl` : `${name}.part-${part.index}-of-${state.parts.length}.jsonl`;
        const uploaded = await service.json(op.upload(profile, o.scope, filename, content));
        part.inputFileId = op.parseFileId(uploaded);
        await writeJobState(statePath, state);
      }
      const batch = await service.batch(
        op.create(profile, o.scope, {
          inputFileId: part.inputFileId,
          endpoint: o.endpoint,
          window: o.window,
          ...(o.metadata !== undefined ? { metadata: o.metadata } : {}),
        }),
      );
      part.batchId = batch.id;
      notePart(part, batch);
      await writeJobState(statePath, state);
      batches.push(batch);
      ctx.reporter.info(
        `batch submit: part ${part.index}/${state.parts.length} (lines ${part.firstLine}–${part.lastLine}, ${plural(part.lines, 'request')}) is batch ${batch.id}, ${batch.status}`,
      );
    }
    return { statePath, stateShown, state, batches };
  } finally {
    lock.release();
  }
}
