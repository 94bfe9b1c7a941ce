/** The embedded server's public vocabulary (docs/design.md §9): options, recorded requests, faults. */

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** The body parsed, when it is JSON (and, in a request log, when the body was not cut). */
  json?: unknown;
  /** Set in a request log when the body was longer than the log keeps. */
  bodyTruncated?: true;
}

/**
 * What a fault does to one request. `times` (default 1) is how many matching requests it hits while queued;
 * `Infinity` hits every one (the spec's `times=*`). `path` (queued faults) aims a fault at the requests whose path
 * starts with it, on any route; without it a queued fault hits only the operation routes (generation, embeddings,
 * the Aleph Alpha tasks), never a listing, tokenization or token exchange. Text specs (`X-Textgen-Fault`,
 * `serve --fault`) parse into these: see src/emulator/core/fault-spec.ts and docs/faults.md.
 */
export type Fault =
  | {
      kind: 'status';
      status: number;
      times?: number;
      path?: string;
      retryAfter?: string;
      retryAfterMs?: number;
      body?: unknown;
    }
  /** Wait before answering headers, then answer normally; with `maxMs`, a uniformly random wait in [ms, maxMs]. */
  | { kind: 'delay'; ms: number; maxMs?: number; times?: number; path?: string }
  /** Never answer (until the client gives up or the server closes). */
  | { kind: 'hang'; times?: number; path?: string }
  /** A 200 stream, then `event: error` with the protocol's error body. */
  | { kind: 'stream-error'; afterEvents: number; times?: number; path?: string }
  /**
   * Destroy the socket: before headers, or mid-stream after `afterEvents` events. With `plain`, a non-stream
   * answer is cut too: its headers and the first half of its body go out, then the socket is destroyed.
   */
  | { kind: 'drop'; afterEvents?: number; plain?: boolean; times?: number; path?: string }
  /** Stop sending mid-stream without closing; with `plain`, a non-stream answer stops after half its body. */
  | { kind: 'stall'; afterEvents: number; plain?: boolean; times?: number; path?: string }
  /**
   * End the body cleanly mid-stream, without the protocol's last event or end marker (a proxy that gives up
   * politely); with `plain`, a non-stream answer ends cleanly after half its body.
   */
  | { kind: 'truncate'; afterEvents: number; plain?: boolean; times?: number; path?: string }
  /**
   * A data line that is not JSON, after `afterEvents` events; the stream then goes on. `as` picks the junk:
   * broken JSON (default), one line of `bytes` filler bytes (default 32 MiB), or random non-UTF-8 bytes and NULs.
   */
  | { kind: 'malformed'; afterEvents: number; as?: MalformedAs; bytes?: number; times?: number; path?: string }
  /** The protocol's own "busy, come back later" answer (Aleph Alpha's 503 QUEUE_FULL and its kin). */
  | { kind: 'busy'; retryAfter?: string; retryAfterMs?: number; times?: number; path?: string }
  /** A 200 whose content type (and body) is not what the protocol promises, e.g. a proxy's HTML page. */
  | { kind: 'content-type'; type: string; times?: number; path?: string }
  /**
   * What the batch service does to the next batch created (`POST …/batches`; no other route takes it): `expire`
   * after `after` lines (partial output, `expired`), `invalid` fails validation at line `line`, `partial` fails every
   * `every`-th line (error records, non-200 responses), `cancel` has the service cancel it after `after` lines.
   */
  | BatchFault;

export type BatchFaultEffect = 'expire' | 'invalid' | 'partial' | 'cancel';

export interface BatchFault {
  kind: 'batch';
  effect: BatchFaultEffect;
  /** expire, cancel: lines run before it acts (default: half the batch). */
  after?: number;
  /** invalid: the 1-based line the validation error names (default 1). */
  line?: number;
  /** partial: every how many lines one fails (default 3). */
  every?: number;
  times?: number;
  path?: string;
}

export type MalformedAs = 'json' | 'long' | 'binary';

export type StatusFault = Extract<Fault, { kind: 'status' }>;
export type StreamFault =
  | Extract<Fault, { kind: 'stream-error' | 'stall' | 'truncate' | 'malformed' }>
  | (Extract<Fault, { kind: 'drop' }> & { afterEvents: number });

export interface RunningServer {
  /** http://HOST:PORT, or https://HOST:PORT when `tls` was given. */
  url: string;
  /**
   * The requests received, in order, when the server was started with `requestLog` (tests): at most its `max`, the
   * oldest dropped first. Without `requestLog` (serve, the local profiles) it stays empty.
   */
  requests: RecordedRequest[];
  /**
   * Queue: the first applicable fault applies to the next operation request; `times` (default 1) counts down.
   * `serve --fault` and `POST /__textgen/faults` push onto this same array.
   */
  faults: Fault[];
  /** Makes every token issued so far expired (401 authentication_token_expired). */
  expireTokens(): void;
  /**
   * Stops listening and lets the requests in flight (streams included) finish for up to `graceMs`; resolves to how
   * many are still running, which close() then cuts. A request that arrives meanwhile is answered on a closing connection.
   */
  drain(graceMs: number): Promise<number>;
  /** Stops listening and closes every connection, cutting what is in flight; never hangs. */
  close(): Promise<void>;
}

export interface ResolvedServerOptions {
  host: string;
  port: number;
  requireAuth: boolean;
  apiKeys: string[];
  users: Record<string, string>;
  tokenTtlSeconds: number;
  tokenDelayMs: number;
  /** How much faster than real time the batch services' clock runs (`serve --batch-speed`; docs/protocols/batch.md). */
  batchSpeed: number;
  log: (line: string) => void;
}
