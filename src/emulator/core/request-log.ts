/**
 * The requests a server keeps for the test that asked for them (`ServerOptions.requestLog`). `textgen serve` and
 * the local profiles keep none: a log nobody reads grew with every request — 680 MB after 40 unauthenticated 7 MB
 * POSTs — so it is a ring of `max` entries whose bodies are cut at `maxBodyLength` characters.
 */
import type { RecordedRequest } from './types.js';

export interface RequestLogOptions {
  /** The most requests kept; the oldest goes first. */
  max: number;
  /** Longer bodies are kept cut to this many characters, without their parsed JSON. Default 1 MiB. */
  maxBodyLength?: number;
}

const DEFAULT_MAX_BODY_LENGTH = 1024 * 1024;

export class RequestLog {
  private readonly max: number;
  private readonly maxBodyLength: number;

  constructor(
    /** The array tests read (`RunningServer.requests`): filled in order, trimmed from the front. */
    readonly entries: RecordedRequest[],
    options: RequestLogOptions,
  ) {
    if (!Number.isInteger(options.max) || options.max < 1) throw new Error('requestLog.max must be a positive integer');
    this.max = options.max;
    this.maxBodyLength = options.maxBodyLength ?? DEFAULT_MAX_BODY_LENGTH;
  }

  record(request: RecordedRequest): void {
    let entry = request;
    if (request.body.length > this.maxBodyLength) {
      const { json: _json, ...rest } = request;
      entry = { ...rest, body: request.body.slice(0, this.maxBodyLength), bodyTruncated: true };
    }
    this.entries.push(entry);
    // Tests clear the array themselves (length = 0), so its length, not a counter, says how full it is.
    if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
  }
}
