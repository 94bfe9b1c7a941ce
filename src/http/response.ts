/**
 * Wraps undici's response in the `HttpResponse` the rest of the code speaks, so that a failure while
 * the body streams in surfaces as NetworkError or Interrupted, never as an undici error.
 * Loaded lazily together with undici (only client.ts imports it, inside `send`).
 */
import type { Dispatcher } from 'undici';
import { Interrupted } from '../errors.js';
import { describeBodyFailure, type FailureContext } from './network-error.js';
import { redactText } from './redact.js';
import type { HttpResponse } from './types.js';

const EXCERPT_LENGTH = 200;

/** Lower-case names; repeated headers joined with ", " as HTTP allows. */
export function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_LENGTH ? `${flat.slice(0, EXCERPT_LENGTH)}…` : flat;
}

export interface ResponseContext {
  failure: FailureContext;
  signal?: AbortSignal | undefined;
  secrets: readonly string[];
}

export function wrapResponse(data: Dispatcher.ResponseData, ctx: ResponseContext): HttpResponse {
  const { statusCode, body: source } = data;
  let consumed = false;

  async function* chunks(): AsyncGenerator<Uint8Array> {
    if (consumed) throw new Error('the response body can be read only once');
    consumed = true;
    let finished = false;
    try {
      for await (const chunk of source) yield chunk as Uint8Array;
      finished = true;
    } catch (err) {
      if (ctx.signal?.aborted) throw new Interrupted();
      throw describeBodyFailure(err, ctx.failure);
    } finally {
      // The consumer stopped early (break, or it threw): free the socket instead of leaking it.
      if (!finished) source.destroy();
    }
  }

  const body: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => chunks() };

  async function text(): Promise<string> {
    const parts: Uint8Array[] = [];
    for await (const part of body) parts.push(part);
    return new TextDecoder().decode(Buffer.concat(parts));
  }

  return {
    status: statusCode,
    headers: flattenHeaders(data.headers),
    body,
    text,
    async json(): Promise<unknown> {
      const raw = await text();
      try {
        return JSON.parse(raw);
      } catch {
        const shown = raw.trim() === '' ? 'an empty body' : `"${redactText(excerpt(raw), ctx.secrets)}"`;
        throw new Error(
          `${ctx.failure.service} at ${ctx.failure.origin} answered HTTP ${statusCode} with ${shown} where JSON was expected`,
        );
      }
    },
  };
}
