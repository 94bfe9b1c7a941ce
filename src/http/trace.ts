/**
 * The `--verbose` HTTP trace: curl-like `>` request and `<` response lines. Every line passes
 * through header, body and secret redaction before it reaches the sink.
 * Loaded lazily together with undici (only client.ts imports it, inside `send`).
 */
import { STATUS_CODES } from 'node:http';
import { redactBody, redactHeaderValue, redactText, redactUrl, type KnownSecrets } from '../contract/redact.js';
import type { HttpRequestSpec } from '../contract/http.js';

/** Prompts can be long; a trace should stay readable. */
const MAX_BODY_CHARS = 8_000;

export class Tracer {
  constructor(
    private readonly sink: ((line: string) => void) | undefined,
    private readonly secrets: readonly string[] | KnownSecrets,
  ) {}

  /** There is a sink: callers may skip building what only the trace would show. */
  get enabled(): boolean {
    return this.sink !== undefined;
  }

  private emit(line: string): void {
    this.sink?.(redactText(line, this.secrets));
  }

  request(spec: HttpRequestSpec): void {
    if (!this.sink) return;
    this.emit(`> ${spec.method} ${redactUrl(spec.url)}`);
    for (const [name, value] of Object.entries(spec.headers)) this.emit(`> ${name}: ${redactHeaderValue(name, value)}`);
    if (spec.body === undefined) return;
    const contentType = Object.entries(spec.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    let body = redactBody(spec.body, contentType);
    if (body.length > MAX_BODY_CHARS) {
      body = `${body.slice(0, MAX_BODY_CHARS)}… (${body.length - MAX_BODY_CHARS} more characters)`;
    }
    this.emit('>');
    for (const line of body.split(/\r?\n/)) this.emit(`> ${line}`);
  }

  response(status: number, headers: Record<string, string>, elapsedMs: number): void {
    if (!this.sink) return;
    const reason = STATUS_CODES[status];
    this.emit(`< ${status}${reason ? ` ${reason}` : ''} (${Math.round(elapsedMs)} ms)`);
    for (const [name, value] of Object.entries(headers)) this.emit(`< ${name}: ${redactHeaderValue(name, value)}`);
  }

  /** `nextAttempt` counts from 1; `totalAttempts` is retries + 1. */
  retry(delayMs: number, why: string, nextAttempt: number, totalAttempts: number): void {
    this.emit(`retrying in ${(delayMs / 1000).toFixed(1)} s (${why}, attempt ${nextAttempt} of ${totalAttempts})`);
  }
}
