/** The vocabulary between the batch scheduler, the commands' line work and the record sinks. */

export interface LineWork<P> {
  /** A line's text → what `run` needs; throws a UsageError for a malformed line (its record says so). */
  parse(text: string, line: number): { payload: P; idJson?: string | undefined };
  /** One attempt at a line: its result as JSON text. Throws RetryableFailure when another attempt may help. */
  run(payload: P, signal: AbortSignal): Promise<string>;
}

/** A line to process: its number in the input and its text (blank, other-shard and resumed lines never get here). */
export interface SourceLine {
  line: number;
  text: string;
  /** The line was longer than a line may be (16 MiB): its text was not kept, and its record is an error. */
  tooLong?: boolean;
}

/** Where records go, in input order. May return a promise to hold the batch back (a slow reader, a file merge). */
export interface RecordSink {
  write(line: number, record: string): void | Promise<void>;
}

export interface SchedulerOptions {
  concurrency: number;
  /** Attempts after the first, per line (--retries). */
  retries: number;
  failFast: boolean;
  /** Ctrl-C. */
  signal: AbortSignal;
  now?: () => number;
  random?: () => number;
  /** Lines read ahead of the oldest unwritten one; default max(4 × concurrency, 64). */
  window?: number;
  /** Told when the service asks the batch to wait long (a Retry-After of minutes must not look like a hang). */
  notice?: (line: string) => void;
}

export interface BatchStats {
  written: number;
  succeeded: number;
  failed: number;
  /** Requests answered 429. */
  throttled: number;
  /** The in-flight limit now (lowered on 429). */
  limit: number;
}

export interface BatchOutcome extends BatchStats {
  interrupted: boolean;
  /** The line that stopped the batch (--fail-fast, or an authentication failure) and its exit code. */
  stoppedAt?: { line: number; exitCode: number };
}
