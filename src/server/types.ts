import type { ProtocolModule } from './router.js';
/** The embedded server's public vocabulary (DESIGN §9): options, recorded requests, faults. */

export interface ServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default false: requests without credentials are served. */
  requireAuth?: boolean;
  /** IAM / CPD / Zen API keys accepted. Default ["local-apikey"]. */
  apiKeys?: string[];
  /** CPD username → password. Default { admin: "password" }. */
  users?: Record<string, string>;
  /** Lifetime of issued tokens. Default 3600. */
  tokenTtlSeconds?: number;
  /** Pause per generated token, for streaming and time_limit realism. Default 0. */
  tokenDelayMs?: number;
  log?: ((line: string) => void) | undefined;
  /** The protocols to serve; default all of them (src/server/protocols.ts). */
  protocols?: ProtocolModule[];
  /** Serve HTTPS with this certificate and key (PEM contents, not paths); default plain HTTP. */
  tls?: { cert: string; key: string };
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** The body parsed, when it is JSON. */
  json?: unknown;
}

export type Fault =
  | { kind: 'status'; status: number; times?: number; retryAfter?: string; retryAfterMs?: number; body?: unknown }
  /** Wait before answering headers, then answer normally; with `maxMs`, a uniformly random wait in [ms, maxMs]. */
  | { kind: 'delay'; ms: number; maxMs?: number; times?: number }
  /** Never answer (until the client gives up or the server closes). */
  | { kind: 'hang'; times?: number }
  /** A 200 stream, then `event: error` with the protocol's error body. */
  | { kind: 'stream-error'; afterEvents: number; times?: number }
  /** Destroy the socket: before headers, or mid-stream after `afterEvents` events. */
  | { kind: 'drop'; afterEvents?: number; times?: number }
  /** Stop sending mid-stream without closing. */
  | { kind: 'stall'; afterEvents: number; times?: number }
  /** A `data:` line that is not JSON, after `afterEvents` events; the stream then goes on. */
  | { kind: 'malformed'; afterEvents: number; times?: number };

export type StatusFault = Extract<Fault, { kind: 'status' }>;
export type StreamFault = Extract<Fault, { kind: 'stream-error' | 'stall' | 'malformed' }> | { kind: 'drop'; afterEvents: number; times?: number };

export interface RunningServer {
  /** http://HOST:PORT, or https://HOST:PORT when `tls` was given. */
  url: string;
  /** Every request, in order. */
  requests: RecordedRequest[];
  /** Queue: the first applicable fault applies to the next generation request; `times` (default 1) counts down. */
  faults: Fault[];
  /** Makes every token issued so far expired (401 authentication_token_expired). */
  expireTokens(): void;
  /** Closes open sockets too; never hangs. */
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
  log: (line: string) => void;
}
