/**
 * Turns what the transports (undici, node:http) and Node throw (error codes, sometimes wrapped in `cause` or an AggregateError)
 * into one line a user can act on, naming the service and the origin it tried to reach.
 * Cheap to import: no dependencies beyond errors.ts.
 */
import { maxHeaderSize } from 'node:http';
import { NetworkError, UnexpectedAnswer, UsageError, type TextgenError } from '../contract/errors.js';

/** undici reads at most node:http's maxHeaderSize of an answer's headers; "16 KiB" unless Node was told otherwise. */
function headerLimitText(): string {
  return maxHeaderSize % 1024 === 0 ? `${maxHeaderSize / 1024} KiB` : `${maxHeaderSize} bytes`;
}

export interface FailureContext {
  /** Label such as "watsonx" or "IBM Cloud IAM". */
  service: string;
  /** `https://host:port`, never the path or query (they may carry ids a user would not paste). */
  origin: string;
  timeoutMs: number;
  connectTimeoutMs: number;
  /** `host:port` of the proxy the request went through, if any. */
  proxy?: string | undefined;
}

export interface Failure {
  error: TextgenError;
  /** A connection that failed before any answer: worth another attempt. */
  retryable: boolean;
  /** Short words for the retry trace line, e.g. "connection refused". */
  reason: string;
}

const TLS_HINT = 'use --ca-cert FILE or --insecure';

const TLS_CODES: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate signed by an unknown CA',
  UNABLE_TO_GET_ISSUER_CERT: 'certificate signed by an unknown CA',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'certificate signed by an unknown CA',
  CERT_UNTRUSTED: 'certificate not trusted',
  CERT_HAS_EXPIRED: 'certificate has expired',
  CERT_NOT_YET_VALID: 'certificate is not yet valid',
  ERR_TLS_CERT_ALTNAME_INVALID: 'certificate does not match the host name',
  HOSTNAME_MISMATCH: 'certificate does not match the host name',
};

/** Lets tests and traces say "0.2 s" and "300 s" rather than "0.200 s". */
export function formatSeconds(ms: number): string {
  return `${Math.round(ms) / 1000} s`;
}

/** The error codes in an error, its causes and the members of an AggregateError, outermost first. */
function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown): void => {
    if (e === null || typeof e !== 'object' || seen.has(e)) return;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    visit((e as { cause?: unknown }).cause);
    if (e instanceof AggregateError) for (const inner of e.errors) visit(inner);
  };
  visit(err);
  return codes;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Classifies a failure that happened before the response headers arrived. */
export function describeRequestFailure(err: unknown, ctx: FailureContext): Failure {
  const { service, origin } = ctx;
  const codes = codesOf(err);
  const has = (code: string): boolean => codes.includes(code);
  const via = ctx.proxy === undefined ? '' : ` via proxy ${ctx.proxy}`;
  const cannot = (what: string): string => `cannot connect to ${service} at ${origin}${via}: ${what}`;
  const fail = (message: string, reason: string, retryable = false, hint?: string): Failure => ({
    error: new NetworkError(message, { cause: err, ...(hint === undefined ? {} : { hint }) }),
    retryable,
    reason,
  });

  const proxyStatus = /Proxy (?:response \((\d{3})\)|Authentication Required \((\d{3})\))/.exec(messageOf(err));
  if (proxyStatus) {
    const status = proxyStatus[1] ?? proxyStatus[2];
    const hint =
      status === '407' ? 'put the proxy credentials in the proxy URL: http://user:password@host:port' : undefined;
    return fail(cannot(`the proxy answered HTTP ${status}`), `proxy answered HTTP ${status}`, false, hint);
  }
  if (has('UND_ERR_INVALID_ARG')) {
    // A malformed header or URL built from user input (e.g. a key pasted with a newline).
    return {
      error: new UsageError(`invalid request to ${service}: ${messageOf(err)}`, { cause: err }),
      retryable: false,
      reason: 'invalid request',
    };
  }
  const tlsCode = codes.find((code) => code in TLS_CODES);
  if (tlsCode !== undefined) {
    const what = TLS_CODES[tlsCode] ?? tlsCode;
    return fail(`TLS verification failed for ${service} at ${origin}: ${what}`, what, false, TLS_HINT);
  }
  if (has('ECONNREFUSED')) return fail(cannot('connection refused'), 'connection refused', true);
  if (has('ENOTFOUND')) return fail(cannot('host name not found (DNS)'), 'host name not found');
  if (has('EAI_AGAIN')) return fail(cannot('DNS lookup failed, try again later'), 'DNS lookup failed');
  if (has('UND_ERR_CONNECT_TIMEOUT') || has('ETIMEDOUT')) {
    const what = `no connection within ${formatSeconds(ctx.connectTimeoutMs)}`;
    return fail(cannot(what), 'connect timeout');
  }
  if (has('UND_ERR_HEADERS_TIMEOUT')) {
    return fail(
      `no response from ${service} at ${origin} within ${formatSeconds(ctx.timeoutMs)} (--timeout)`,
      'timeout',
    );
  }
  if (has('UND_ERR_HEADERS_OVERFLOW')) {
    // The service did answer, with more header bytes than Node reads (--max-http-header-size, 16 KiB by default):
    // an answer that cannot be read is an UnexpectedAnswer (exit 4), and no retry will shrink it.
    return {
      error: new UnexpectedAnswer(
        `${service} at ${origin} answered with headers too large to read (more than ${headerLimitText()})`,
      ),
      retryable: false,
      reason: 'headers too large',
    };
  }
  if (has('ECONNRESET') || has('EPIPE')) {
    return fail(`connection to ${service} at ${origin} was reset before the answer`, 'connection reset', true);
  }
  if (has('UND_ERR_SOCKET') || has('UND_ERR_CLOSED')) {
    return fail(`connection to ${service} at ${origin} closed before the answer`, 'connection closed', true);
  }
  if (has('EHOSTUNREACH') || has('ENETUNREACH')) return fail(cannot('host unreachable'), 'host unreachable');
  // undici names OpenSSL's reason in the code (ERR_SSL_…); node:https says EPROTO with OpenSSL's text.
  if (codes.some((code) => code.startsWith('ERR_SSL_')) || (has('EPROTO') && /SSL routines/.test(messageOf(err)))) {
    // OpenSSL's text is "…:SSL routines:<function>:<reason>:<source file>…"; only the reason helps.
    const reason = /SSL routines:[^:]*:([^:]+)/.exec(messageOf(err))?.[1]?.trim();
    return fail(
      cannot(`TLS handshake failed${reason ? ` (${reason})` : ''}`),
      'TLS handshake failed',
      false,
      'check that the URL scheme (http/https) and port are right',
    );
  }
  return fail(cannot(messageOf(err)), 'connection failed');
}

const BODY_RESET_CODES = ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'];

/** The connection broke while the body came in (not a timeout): worth another attempt while nothing was shown. */
export function isBodyReset(err: unknown): boolean {
  return codesOf(err).some((code) => BODY_RESET_CODES.includes(code));
}

/** Classifies a failure while the body was streaming in (the caller already had the response). */
export function describeBodyFailure(err: unknown, ctx: FailureContext): NetworkError {
  const { service, origin } = ctx;
  const codes = codesOf(err);
  if (codes.includes('UND_ERR_BODY_TIMEOUT')) {
    return new NetworkError(
      `${service} at ${origin} sent nothing for ${formatSeconds(ctx.timeoutMs)} in the middle of its answer (--timeout)`,
      { cause: err },
    );
  }
  if (codes.some((code) => BODY_RESET_CODES.includes(code))) {
    return new NetworkError(`connection to ${service} at ${origin} broke off in the middle of its answer`, {
      cause: err,
    });
  }
  return new NetworkError(`reading the answer from ${service} at ${origin} failed: ${messageOf(err)}`, {
    cause: err,
  });
}
