/**
 * `batch results`: every part's output and error files downloaded and written as textgen's batch records
 * (src/batch/records.ts: `{"line", "id"?, "result"}` or `{"line", "id"?, "error"}`) **in input order** — the services
 * do not keep it — so `batch merge`, `--resume` files and jq pipelines take them unchanged. With a state file the
 * input is read again (it must be the one submitted: same SHA-256) and every non-blank line gets exactly one record:
 * its answer, its error, or — for a line its batch never ran (cancelled, expired, failed) — an error saying so.
 * Without one (`results ID`) lines are numbered from `line-N` custom_ids, or `--input FILE` gives the order.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Context } from '../../context.js';
import type { BatchEndpoint, ProviderBatch } from '../../contract/adapter.js';
import { UnexpectedAnswer, UsageError } from '../../contract/errors.js';
import type { BatchService } from '../../call/batch-calls.js';
import { errorRecord, type LineError, lineErrorOf, recordPrefix, resultRecord } from '../records.js';
import { customIdOf } from './convert.js';
import type { ResultDecoder } from './decode.js';
import { type JobRef, partsOf, saveRef } from './job.js';

/** One line of an output or error file, read. */
interface Answer {
  status?: number;
  body?: unknown;
  error?: { message: string; code?: string };
  /** The batch it came from. */
  batch: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A file's lines → answers by custom_id; a custom_id seen before keeps its first answer (and is counted). */
export function readAnswers(text: string, batch: string, into: Map<string, Answer>): { duplicates: number } {
  let duplicates = 0;
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new UnexpectedAnswer(`a line of batch ${batch}'s output is not JSON: ${raw.slice(0, 80)}`);
    }
    if (!isObject(value) || typeof value.custom_id !== 'string')
      throw new UnexpectedAnswer(`a line of batch ${batch}'s output has no "custom_id"`);
    if (into.has(value.custom_id)) {
      duplicates++;
      continue;
    }
    const answer: Answer = { batch };
    const response = value.response;
    if (isObject(response)) {
      if (typeof response.status_code === 'number') answer.status = response.status_code;
      answer.body = response.body;
    }
    const error = value.error;
    if (isObject(error) && (typeof error.message === 'string' || typeof error.code === 'string')) {
      answer.error = {
        message: typeof error.message === 'string' ? error.message : String(error.code),
        ...(typeof error.code === 'string' ? { code: error.code } : {}),
      };
    }
    into.set(value.custom_id, answer);
  }
  return { duplicates };
}

/** Where records go: stdout in chunks, or a file put in place at the end. */
export interface RecordOut {
  write(text: string): Promise<void> | void;
  finish(): Promise<void>;
  discard(): Promise<void>;
}

export interface ResultStats {
  records: number;
  succeeded: number;
  failed: number;
  /** Lines no batch ran (cancelled, expired). */
  notRun: number;
  duplicates: number;
}

function recordOf(
  service: BatchService,
  decode: ResultDecoder,
  prefix: string,
  answer: Answer | undefined,
  notRun: (() => string) | undefined,
): { record: string; ok: boolean } {
  if (answer === undefined) {
    const error: LineError = { exit_code: 4, message: notRun?.() ?? 'the batch output has no answer for this line' };
    return { record: errorRecord(prefix, error), ok: false };
  }
  if (answer.error !== undefined && answer.body === undefined) {
    const error: LineError = { exit_code: 4, message: `${service.callee.kind}: ${answer.error.message}` };
    if (answer.error.code !== undefined) error.code = answer.error.code;
    return { record: errorRecord(prefix, error), ok: false };
  }
  const status = answer.status ?? 200;
  if (status < 200 || status >= 300)
    return { record: errorRecord(prefix, lineErrorOf(service.lineError(status, answer.body))), ok: false };
  try {
    return { record: resultRecord(prefix, decode(answer.body)), ok: true };
  } catch (e) {
    return { record: errorRecord(prefix, lineErrorOf(e)), ok: false };
  }
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Downloads every part's files; the answers by custom_id. */
async function download(
  service: BatchService,
  batches: readonly ProviderBatch[],
): Promise<{ answers: Map<string, Answer>; duplicates: number }> {
  const answers = new Map<string, Answer>();
  let duplicates = 0;
  for (const b of batches) {
    for (const fileId of [b.output_file_id, b.error_file_id]) {
      if (fileId === undefined) continue;
      const text = await service.text(service.op.content(service.profile, service.scope, fileId));
      duplicates += readAnswers(text, b.id, answers).duplicates;
    }
  }
  return { answers, duplicates };
}

export async function writeJobResults(
  ctx: Context,
  service: BatchService,
  ref: JobRef,
  batches: readonly ProviderBatch[],
  decode: ResultDecoder,
  out: RecordOut,
  input: string | undefined,
): Promise<ResultStats> {
  const { answers, duplicates } = await download(service, batches);
  const stats: ResultStats = { records: 0, succeeded: 0, failed: 0, notRun: 0, duplicates };
  const emit = async (line: number, idJson: string | undefined, answer: Answer | undefined, notRun?: () => string) => {
    const { record, ok } = recordOf(service, decode, recordPrefix(line, idJson), answer, notRun);
    stats.records++;
    if (ok) stats.succeeded++;
    else stats.failed++;
    if (answer === undefined) stats.notRun++;
    await out.write(ctx.secrets.redact(record));
  };
  const source = ref.kind === 'state' ? ref.state.input : input;
  if (source !== undefined) {
    if (ref.kind === 'state' && (await sha256(source)) !== ref.state.inputSha256)
      throw new UsageError(`${source} has changed since it was submitted: its records cannot be matched to its lines`, {
        hint: `put back the file that was submitted, or fetch the raw answers with "textgen batch results ID --raw"`,
      });
    const parts = partsOf(ref);
    const statusOf = (line: number): string => {
      const part = ref.kind === 'id' ? parts[0] : parts.find((p) => line >= p.firstLine && line <= p.lastLine);
      const batch = batches.find((b) => b.id === part?.batchId);
      return batch === undefined
        ? 'no batch ran this line (its part was never submitted)'
        : `not run: batch ${batch.id} ended ${batch.status} before this line ran`;
    };
    const { openInput, readLines } = await import('../line-reader.js');
    const file = await openInput('--input', source);
    try {
      let line = 0;
      for await (const text of readLines(file.stream as AsyncIterable<Buffer>)) {
        line++;
        if (text === undefined || text.trim() === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          value = undefined;
        }
        const { customId, idJson } = customIdOf(value, line);
        await emit(line, idJson, answers.get(customId), () => statusOf(line));
        answers.delete(customId);
      }
    } finally {
      await file.close();
    }
    if (answers.size > 0)
      ctx.reporter.warn(
        `${answers.size} ${answers.size === 1 ? 'answer names a custom_id' : 'answers name custom_ids'} the input does not have; not written`,
      );
  } else {
    // No input: `line-N` custom_ids give the line; the others follow in the files' order.
    const numbered: Array<[number, string, Answer]> = [];
    const others: Array<[string, Answer]> = [];
    for (const [customId, answer] of answers) {
      const m = /^line-(\d+)$/.exec(customId);
      if (m) numbered.push([Number(m[1]), customId, answer]);
      else others.push([customId, answer]);
    }
    numbered.sort((a, b) => a[0] - b[0]);
    let last = 0;
    for (const [line, , answer] of numbered) {
      await emit(line, undefined, answer);
      last = line;
    }
    for (const [customId, answer] of others) await emit(++last, JSON.stringify(customId), answer);
  }
  await out.finish();
  if (ref.kind === 'state') {
    const at = new Date(ctx.now()).toISOString();
    for (const p of partsOf(ref)) p.fetchedAt = at;
    await saveRef(ref);
  }
  return stats;
}

/** The endpoint a batch object names, for `results ID`. */
export function endpointOfBatch(service: BatchService, batch: ProviderBatch): BatchEndpoint {
  const endpoint = batch.endpoint === undefined ? undefined : service.op.endpointOfUrl(batch.endpoint);
  if (endpoint === undefined)
    throw new UsageError(
      `batch ${batch.id} runs ${batch.endpoint ?? 'an unnamed endpoint'}, which textgen cannot read into records`,
      {
        hint: 'fetch its answers as they are with --raw',
      },
    );
  return endpoint;
}
