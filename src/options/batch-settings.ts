/**
 * `--batch`, `--concurrency`, `--resume`, `--shard`, `--fail-fast` → BatchSettings. Cheap to import: commands call it
 * before deciding between the single-request flow and the batch flow. Every malformed value is a UsageError.
 */
import { UsageError } from '../contract/errors.js';
import { parseBooleanFlag } from './flag-values.js';
import { BATCH_ONLY_KEYS, type BatchFlagOptions } from './batch-flag-specs.js';
import { parseIntegerFlag } from './integer-flag.js';
import type { HttpRequestSpec } from '../contract/http.js';

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 1024;

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export interface BatchSettings {
  /** A path, or "-" for stdin. */
  source: string;
  concurrency: number;
  /** The earlier output to resume; the results are written there. */
  resume?: string;
  shard?: Shard;
  failFast: boolean;
  /**
   * `batch submit`: nothing is sent; every line is checked as `--dry-run` checks it and handed over with the request
   * `--batch` would send for it, or with the error it would fail with before sending.
   */
  collect?: LineCollector;
}

export interface LineCollector {
  /** A valid line: its number, its text, the id JSON its record would carry, and the request for it. */
  line(line: number, text: string, idJson: string | undefined, spec: HttpRequestSpec): void;
  /** A line that would fail before sending, with `--batch --dry-run`'s message. */
  invalid(line: number, message: string): void;
}

export function parseConcurrency(value: string): number {
  return parseIntegerFlag('--concurrency', value.trim(), { min: 1, max: MAX_CONCURRENCY });
}

export function parseShard(value: string): Shard {
  const text = value.trim();
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!(count >= 1 && index >= 1 && index <= count && Number.isSafeInteger(count))) {
    throw new UsageError(`--shard must be K/N with 1 ≤ K ≤ N, e.g. --shard 2/3, got ${JSON.stringify(text)}`);
  }
  return { index, count };
}

/** Line n (from 1) belongs to shard ((n − 1) mod N) + 1. */
export function inShard(line: number, shard: Shard | undefined): boolean {
  return shard === undefined || (line - 1) % shard.count === shard.index - 1;
}

/** The batch settings, or undefined when --batch is not given (then the batch-only flags are a usage error). */
export function parseBatchSettings(options: BatchFlagOptions): BatchSettings | undefined {
  const batch = options.batch;
  if (batch === undefined) {
    const stray = BATCH_ONLY_KEYS.filter(([key]) => options[key] !== undefined).map(([, flag]) => flag);
    if (stray.length > 0)
      throw new UsageError(`${stray.join(', ')} ${stray.length === 1 ? 'works' : 'work'} only with --batch`);
    return undefined;
  }
  if (batch === '') throw new UsageError('--batch needs a JSONL file, or - for stdin');
  const settings: BatchSettings = {
    source: batch,
    concurrency: options.concurrency === undefined ? DEFAULT_CONCURRENCY : parseConcurrency(options.concurrency),
    failFast: parseBooleanFlag('--fail-fast', options.failFast) === true,
  };
  const resume = options.resume;
  if (resume !== undefined) {
    if (resume === '' || resume === '-')
      throw new UsageError('--resume needs the path of an earlier batch output file');
    if (resume === batch) throw new UsageError('--resume names the output file, which must not be the --batch input');
    settings.resume = resume;
  }
  if (options.shard !== undefined) settings.shard = parseShard(options.shard);
  return settings;
}
