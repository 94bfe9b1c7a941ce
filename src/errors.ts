/**
 * The one error hierarchy. Every expected failure is one of these; the top level prints
 * `error: <message>` (and the hint) and exits with `exitCode`. Anything else is a bug (exit 1).
 */
export abstract class TextgenError extends Error {
  abstract readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
  }
}

/** Bad flag, bad JSON, failed validation, unsupported parameter, missing input without a terminal. */
export class UsageError extends TextgenError {
  readonly exitCode = 2;
}

/** 401/403, failed token exchange, missing credentials. */
export class AuthError extends TextgenError {
  readonly exitCode = 3;
  readonly status: number | undefined;
  readonly traceId: string | undefined;
  constructor(message: string, options: { hint?: string; cause?: unknown; status?: number; traceId?: string } = {}) {
    super(message, options);
    this.status = options.status;
    this.traceId = options.traceId;
  }
}

export interface ApiErrorDetails {
  provider: string;
  status: number;
  code?: string | undefined;
  message: string;
  traceId?: string | undefined;
  /** What the service calls its trace id ("apim-request-id", "x-request-id"); default "trace". */
  traceLabel?: string | undefined;
}

/** The service answered with an error (after retries). */
export class ApiError extends TextgenError {
  readonly exitCode = 4;
  readonly provider: string;
  readonly status: number;
  readonly code: string | undefined;
  readonly traceId: string | undefined;

  constructor(details: ApiErrorDetails, options: { hint?: string; cause?: unknown } = {}) {
    super(formatApiMessage(details), options);
    this.provider = details.provider;
    this.status = details.status;
    this.code = details.code;
    this.traceId = details.traceId;
  }
}

export function formatApiMessage(d: ApiErrorDetails): string {
  const code = d.code ? ` ${d.code}` : '';
  const trace = d.traceId ? ` (${d.traceLabel ?? 'trace'} ${d.traceId})` : '';
  return `${d.provider} returned HTTP ${d.status}${code}: ${d.message}${trace}`;
}

/** Cannot connect, DNS, TLS, timeout. */
export class NetworkError extends TextgenError {
  readonly exitCode = 5;
}

/** Generation broke off mid-stream; the partial output has been written. */
export class StreamError extends TextgenError {
  readonly exitCode = 6;
}

/** The output cannot be written: stdout on a full disk, stdout closed before the command ran. */
export class OutputError extends TextgenError {
  readonly exitCode = 7;
}

/** Ctrl-C. */
export class Interrupted extends TextgenError {
  readonly exitCode = 130;
  constructor(message = 'interrupted') {
    super(message);
  }
}

export function isTextgenError(e: unknown): e is TextgenError {
  return e instanceof TextgenError;
}
