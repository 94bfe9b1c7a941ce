/**
 * The batch services' vocabulary, the same for the three dialects `serve` speaks (OpenAI `/v1`, Azure OpenAI
 * `/openai`, watsonx `/ml/v1`): stored files, batches, their statuses and per-line errors. Each dialect's routes
 * (profiles/<kind>/server/batch-*.ts) word these on the wire; docs/protocols/batch.md describes both.
 */

export type BatchStatus =
  | 'validating'
  | 'failed'
  | 'in_progress'
  | 'finalizing'
  | 'completed'
  | 'expired'
  | 'cancelling'
  | 'cancelled';

/** The statuses a batch never leaves. */
export const TERMINAL_STATUSES: ReadonlySet<BatchStatus> = new Set(['failed', 'completed', 'expired', 'cancelled']);

export interface StoredFile {
  id: string;
  /** Whose file it is: the watsonx project or space; one scope for OpenAI and Azure. */
  scope: string;
  filename: string;
  /** `batch` for uploads, `batch_output` for the files a batch writes. */
  purpose: string;
  bytes: number;
  /** Unix seconds. */
  createdAt: number;
  content: string;
}

/** One line's error, as a failed batch's `errors.data` lists them. */
export interface LineError {
  code: string;
  message: string;
  /** 1-based; null for a problem of the whole file. */
  line: number | null;
  param?: string | null;
}

export interface BatchTimes {
  in_progress_at?: number;
  finalizing_at?: number;
  completed_at?: number;
  failed_at?: number;
  expired_at?: number;
  cancelling_at?: number;
  cancelled_at?: number;
}

export interface BatchRecord {
  id: string;
  scope: string;
  /** The dialect that created it: its routes alone find it. */
  dialect: string;
  endpoint: string;
  inputFileId: string;
  completionWindow: string;
  /** The window in seconds, e.g. 86 400 for `24h`. */
  windowSeconds: number;
  metadata: Record<string, string> | null;
  status: BatchStatus;
  /** Unix seconds on the batch's own clock (see pace.ts): created_at plus the emulated time spent so far. */
  createdAt: number;
  expiresAt: number;
  times: BatchTimes;
  counts: { total: number; completed: number; failed: number };
  errors: LineError[] | null;
  outputFileId: string | null;
  errorFileId: string | null;
  /** The model every line names (OpenAI reports it), once validated. */
  model: string | null;
  usage: { input_tokens: number; output_tokens: number; total_tokens: number };
  /** Emulated milliseconds since creation. */
  elapsedMs: number;
  /** Set by a cancel request; the runner acts on it between lines. */
  cancelRequested: boolean;
  /** What the dialect's routes need back when the lines run (api-version, watsonx version, credentials). */
  context: Record<string, string>;
}

/** What one dialect enforces. docs/protocols/batch.md lists each dialect's numbers. */
export interface BatchLimits {
  /** Lines (requests) in one input file. */
  maxLines: number;
  /** Bytes in one input file. */
  maxFileBytes: number;
  /** Files kept per scope (uploads and outputs). */
  maxFiles: number;
  /** Batches not yet finished, per scope. */
  maxActiveBatches: number;
}
