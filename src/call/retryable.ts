/**
 * What a batch may try again (docs/design.md §7): 408, 429, 500, 502, 503, 504 and connections that failed before an answer
 * (refused, reset, closed). The batch scheduler does the retrying itself, so that a 429 slows the whole batch.
 */
import { NetworkError, type TextgenError } from '../contract/errors.js';
import { describeRequestFailure } from '../http/network-error.js';

export class RetryableFailure extends Error {
  constructor(
    /** What the line's record says when no retry is left. */
    readonly error: TextgenError,
    /** The service's own wish (retry-after-ms / Retry-After), capped as the client caps it. */
    readonly retryAfterMs: number | undefined,
    /** A 429: the whole batch slows down. */
    readonly throttled: boolean,
  ) {
    super(error.message);
  }
}

/** A NetworkError the HTTP client would have retried: the connection failed before any answer. */
export function isRetryableNetworkError(e: unknown): e is NetworkError {
  if (!(e instanceof NetworkError)) return false;
  const failure = describeRequestFailure(e.cause, { service: '', origin: '', timeoutMs: 0, connectTimeoutMs: 0 });
  return failure.retryable;
}
