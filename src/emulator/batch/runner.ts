/**
 * One batch's life in the background, as the services run it: `validating` (the input file is checked, a problem
 * fails the batch), `in_progress` (each line runs on the server's own route for its `url`, through
 * ServerServices.dispatch, in a shuffled order the input file seeds), `finalizing` (the output and error files are
 * written), `completed`; or `expired` when the window passes first, `cancelling` → `cancelled` when a client (or a
 * `batch-cancel` fault) cancels it. Lines that never ran are written to the error file with `batch_expired` or
 * `batch_cancelled`, so every input line is accounted for in one of the two files.
 */
import { randomBytes } from 'node:crypto';
import type { InternalAnswer, InternalCall } from '../core/router.js';
import type { BatchFault, Fault } from '../core/types.js';
import { validateInput, type InputLine, type LineRules } from './input-lines.js';
import { batchNow, Pace, PHASE_MS } from './pace.js';
import type { BatchStore } from './store.js';
import type { BatchRecord } from './types.js';

export interface BatchRun {
  store: BatchStore;
  batch: BatchRecord;
  /** The input file's text, read when the batch was created. */
  input: string;
  rules: LineRules;
  fault: BatchFault | undefined;
  speed: number;
  /** The server's `closed` signal. */
  signal: AbortSignal;
  /** The internal request that runs one line (the dialect maps its `url` to a route). */
  call(line: InputLine): InternalCall;
  dispatch(call: InternalCall): Promise<InternalAnswer>;
  log(line: string): void;
}

const PARTIAL_EVERY = 3;
const SERVER_ERROR: Fault = { kind: 'status', status: 500 };

const NOT_RUN = {
  expired: {
    code: 'batch_expired',
    message: 'This request could not be executed before the completion window expired.',
  },
  cancelled: { code: 'batch_cancelled', message: 'This request was not executed because the batch was cancelled.' },
} as const;

/** Starts the batch's life; returns at once. Errors are logged, never thrown: no client is waiting on them. */
export function startBatch(run: BatchRun): void {
  void live(run).catch((error: unknown) => {
    run.log(`batch ${run.batch.id}: ${(error as Error).stack ?? String(error)}`);
    const { batch } = run;
    batch.status = 'failed';
    batch.times.failed_at = batchNow(batch);
    batch.errors = [{ code: 'server_error', message: 'The batch failed inside the local server.', line: null }];
  });
}

async function live(run: BatchRun): Promise<void> {
  const { batch, fault } = run;
  const pace = new Pace(run.speed, run.signal);
  if (!(await pace.spend(batch, PHASE_MS.validating))) return;
  if (batch.cancelRequested) return cancel(run, pace, [], [], [], []);
  const checked = validateInput(run.input, run.rules);
  if (!checked.ok || fault?.effect === 'invalid') {
    batch.status = 'failed';
    batch.times.failed_at = batchNow(batch);
    batch.errors = checked.ok ? [invalidLine(fault!, checked.lines)] : checked.errors;
    run.log(`batch ${batch.id}: failed validation (${batch.errors.length} errors)`);
    return;
  }
  const lines = checked.lines;
  batch.model = checked.model;
  batch.status = 'in_progress';
  batch.times.in_progress_at = batchNow(batch);
  batch.counts.total = lines.length;

  const order = shuffled(lines.length, seedOf(run.input));
  const outputs: string[] = [];
  const errors: string[] = [];
  const stopAt =
    fault?.effect === 'expire' || fault?.effect === 'cancel' ? (fault.after ?? Math.floor(lines.length / 2)) : -1;
  const every = fault?.effect === 'partial' ? (fault.every ?? PARTIAL_EVERY) : 0;
  let done = 0;
  for (const index of order) {
    if (batch.cancelRequested) return cancel(run, pace, lines, order.slice(done), outputs, errors);
    if (done === stopAt && fault?.effect === 'cancel') {
      run.log(`batch ${batch.id}: cancelled by the service after ${done} lines (fault)`);
      batch.status = 'cancelling';
      batch.times.cancelling_at = batchNow(batch);
      return cancel(run, pace, lines, order.slice(done), outputs, errors);
    }
    if (done === stopAt || batch.elapsedMs + PHASE_MS.line > batch.windowSeconds * 1000)
      return expire(run, lines, order.slice(done), outputs, errors);
    const line = lines[index]!;
    const failing = every > 0 && (index + 1) % every === 0;
    if (failing && ((index + 1) / every) % 2 === 0) {
      // Every other failure is a line the service could not run at all: an error record, no response.
      errors.push(
        record(line, null, { code: 'server_error', message: 'The server had an error processing this request.' }),
      );
      batch.counts.failed++;
    } else {
      const call = run.call(line);
      // The other failures are the route's own error answer (a 500 in the dialect's words), via a status fault.
      const answer = await run.dispatch(failing ? { ...call, fault: SERVER_ERROR } : call);
      if (run.signal.aborted) return;
      const body = parseBody(answer.body);
      const response = { status_code: answer.status, request_id: requestIdOf(answer), body };
      if (answer.status >= 200 && answer.status < 300) {
        outputs.push(record(line, response, null));
        batch.counts.completed++;
        addUsage(batch, body);
      } else {
        errors.push(record(line, response, null));
        batch.counts.failed++;
      }
    }
    done++;
    if (!(await pace.spend(batch, PHASE_MS.line))) return;
  }
  // A cancel that came in while the last line ran still wins over finalizing, as the cancel answer promised.
  if (batch.cancelRequested) return cancel(run, pace, lines, [], outputs, errors);
  batch.status = 'finalizing';
  batch.times.finalizing_at = batchNow(batch);
  if (!(await pace.spend(batch, PHASE_MS.finalizing))) return;
  writeFiles(run, outputs, errors);
  batch.status = 'completed';
  batch.times.completed_at = batchNow(batch);
  run.log(`batch ${batch.id}: completed (${batch.counts.completed} ok, ${batch.counts.failed} failed)`);
}

async function cancel(
  run: BatchRun,
  pace: Pace,
  lines: InputLine[],
  left: number[],
  outputs: string[],
  errors: string[],
): Promise<void> {
  const { batch } = run;
  batch.status = 'cancelling';
  batch.times.cancelling_at ??= batchNow(batch);
  if (!(await pace.spend(batch, PHASE_MS.cancelling))) return;
  for (const index of left) errors.push(record(lines[index]!, null, NOT_RUN.cancelled));
  writeFiles(run, outputs, errors);
  batch.status = 'cancelled';
  batch.times.cancelled_at = batchNow(batch);
  run.log(`batch ${batch.id}: cancelled (${batch.counts.completed} ok, ${left.length} not run)`);
}

function expire(run: BatchRun, lines: InputLine[], left: number[], outputs: string[], errors: string[]): void {
  const { batch } = run;
  for (const index of left) errors.push(record(lines[index]!, null, NOT_RUN.expired));
  writeFiles(run, outputs, errors);
  batch.status = 'expired';
  batch.times.expired_at = batchNow(batch);
  run.log(`batch ${batch.id}: expired (${batch.counts.completed} ok, ${left.length} not run)`);
}

/** The output file (2xx answers) and the error file (the rest), each only when it has a line, as the services do. */
function writeFiles(run: BatchRun, outputs: string[], errors: string[]): void {
  const { batch, store } = run;
  const put = (lines: string[], suffix: string): string => {
    const content = lines.map((l) => `${l}\n`).join('');
    const id = store.newId('file-');
    store.putFile({
      id,
      scope: batch.scope,
      filename: `${batch.id}_${suffix}.jsonl`,
      purpose: 'batch_output',
      bytes: Buffer.byteLength(content),
      createdAt: batchNow(batch),
      content,
    });
    return id;
  };
  if (outputs.length > 0) batch.outputFileId = put(outputs, 'output');
  if (errors.length > 0) batch.errorFileId = put(errors, 'error');
}

function record(
  line: InputLine,
  response: { status_code: number; request_id: string; body: unknown } | null,
  error: { code: string; message: string } | null,
): string {
  return JSON.stringify({
    id: `batch_req_${randomBytes(12).toString('hex')}`,
    custom_id: line.customId,
    response,
    error,
  });
}

function invalidLine(fault: BatchFault, lines: InputLine[]): import('./types.js').LineError {
  const line = fault.line ?? lines[0]?.line ?? 1;
  return { code: 'invalid_request', message: `Line ${line} of the input file is not a valid request (fault).`, line };
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function requestIdOf(answer: InternalAnswer): string {
  return (
    answer.headers['x-request-id'] ??
    answer.headers['apim-request-id'] ??
    answer.headers['x-global-transaction-id'] ??
    `req_${randomBytes(12).toString('hex')}`
  );
}

/** Token usage as OpenAI reports it (`usage.prompt_tokens`/`completion_tokens`) or watsonx (`results[].…_count`). */
function addUsage(batch: BatchRecord, body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const o = body as Record<string, unknown>;
  let input = 0;
  let output = 0;
  const usage = o.usage as Record<string, unknown> | undefined;
  if (usage && typeof usage === 'object') {
    input = Number(usage.prompt_tokens ?? 0) || 0;
    output = Number(usage.completion_tokens ?? 0) || 0;
  } else if (Array.isArray(o.results)) {
    for (const r of o.results as Record<string, unknown>[]) {
      input += Number(r?.input_token_count ?? 0) || 0;
      output += Number(r?.generated_token_count ?? 0) || 0;
    }
  }
  batch.usage.input_tokens += input;
  batch.usage.output_tokens += output;
  batch.usage.total_tokens += input + output;
}

/** FNV-1a of the input: the same file runs (and lists its output) in the same order every time. */
function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** 0…n−1 in a Fisher–Yates order drawn from mulberry32(seed). */
export function shuffled(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}
