/** The shapes the HTTP layer speaks. Profiles build `HttpRequestSpec`s; the client sends them. */
import type { KnownSecrets } from './redact.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';

export interface HttpRequestSpec {
  method: HttpMethod;
  /** Absolute URL, query string included. */
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** Already-serialised body (JSON text or form-encoded). */
  body?: string;
}

export interface HttpResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body as it arrives. Consume once: either iterate `body` or call `text()`/`json()`. */
  body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
  /** Parses the body as JSON; throws a NetworkError-free plain Error when it is not JSON. */
  json(): Promise<unknown>;
  /**
   * The reader has all it needs (a stream's end marker came) and stops reading: what is left of the body is read
   * and dropped, a little at most and for a short while, so that the connection serves the next request instead of
   * being cut. Without it, stopping early cuts the connection (which is right for a stream still going).
   */
  release?(): void;
  /**
   * The body handed to `sink` chunk by chunk in the callback that brought it, instead of a promise per chunk through
   * `body` (a stream's reader on the hot path: a gateway or a chat hands on one event per token). Instead of `body`,
   * never with it. Returns `stop`, which ends the reading (and cuts the connection unless `release()` came first).
   * The sink's methods must not throw.
   */
  push?(sink: BodySink): () => void;
}

/** Where `HttpResponse.push` hands a body: each chunk, then exactly one of `end` or `fail` (with the reader's error). */
export interface BodySink {
  chunk(chunk: Uint8Array): void;
  end(): void;
  fail(error: unknown): void;
}

export interface SendOptions {
  signal?: AbortSignal;
  /** Overrides the client's retry count for this call (token exchanges use 0 or 1). */
  retries?: number;
  /** A label for traces and error messages, e.g. "watsonx" or "IBM Cloud IAM". */
  service?: string;
  /**
   * One of many alike requests (a batch line): a URL that goes through no proxy and no cassette takes the lean
   * transport (src/http/lean-transport.ts), which costs a fraction of node:http's CPU per request.
   */
  lean?: boolean;
}

export interface HttpClient {
  /**
   * Sends a request, retrying 408/429/500/502/503/504 and connection resets with backoff
   * (honouring retry-after-ms and Retry-After, capped at 60 s). Returns the final response
   * whatever its status (callers map non-2xx to errors); throws NetworkError when no
   * response could be had (refused, DNS, TLS, timeout) and Interrupted when aborted. An answer that is not an
   * event stream is read whole before it is returned, so one whose connection breaks halfway is retried too
   * (nothing of it was shown); an event stream is returned as soon as its headers arrive.
   */
  send(request: HttpRequestSpec, options?: SendOptions): Promise<HttpResponse>;
  /** Releases sockets. */
  close(): Promise<void>;
}

export interface HttpClientOptions {
  /** Bound on the wait for response headers, and on silence inside a streamed body. Default 300 000. */
  timeoutMs?: number;
  /** Default 10 000. */
  connectTimeoutMs?: number;
  /** Default 2. */
  retries?: number;
  /** PEM file with extra trusted CAs. */
  caCertPath?: string;
  /** Skip TLS verification (the caller prints the warning). */
  insecure?: boolean;
  /** Receives one line per trace event for `--verbose`; secrets already redacted. */
  trace?: (line: string) => void;
  /** Secret values that must never appear in a trace line or a message; the client adds the credentials it sends. */
  secrets?: string[] | KnownSecrets;
  /** The `User-Agent` sent with every request (unless a request names its own); default textgen's own. */
  userAgent?: string;
  /** Told when a retry waits long on the service's word (a Retry-After of minutes must not look like a hang). */
  notice?: (line: string) => void;
  /** Environment for HTTP(S)_PROXY/NO_PROXY; defaults to none (no proxy). */
  env?: Record<string, string | undefined>;
  /** Injected for tests: sleeps between retries. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injected for tests: 0 ≤ x < 1, used for jitter. */
  random?: () => number;
}

/** One Server-Sent Event as the parser (src/http/sse-parser.ts) hands it over, and as a stream decoder reads it. */
export interface SseEvent {
  /** The `event` field; "message" when unset or empty. */
  event: string;
  /** `data` lines joined with "\n". */
  data: string;
  /** The last non-empty event id seen on the stream so far (it persists across events, as in EventSource). */
  id?: string;
  /** The last valid `retry` value seen on the stream so far (a connection setting, not a per-event one). */
  retry?: number;
}
