import type { SseEvent } from '../src/http/sse-parser.js';
import type { StreamStep } from './types.js';

/** How a protocol words a failure inside its own body, or undefined when the body is not one. */
export type ErrorReader = (body: unknown) => { message: string; code?: string } | undefined;

/**
 * The part of decoding a JSON event stream that every protocol shares: `event: error` (body JSON or not), the
 * `[DONE]` marker, empty and `{}` keep-alives, data that is not JSON (a malformed event ends the stream with
 * exit 6), and error payloads inside a 200 stream. What is left is a parsed body for the protocol to map.
 */
export function readJsonEvent(event: SseEvent, errorOf: ErrorReader): StreamStep | { type: 'json'; body: unknown } {
  const data = event.data.trim();
  if (event.event === 'close') return { type: 'end' };
  if (event.event === 'error') {
    let body: unknown = data;
    try {
      body = JSON.parse(data);
    } catch {
      // Not JSON: the text itself is the message.
    }
    const failure = errorOf(body);
    return { type: 'error', message: failure?.message ?? (data || 'the service reported an error'), ...(failure?.code ? { code: failure.code } : {}), raw: body };
  }
  if (data === '[DONE]') return { type: 'end' };
  if (data === '' || data === '{}') return { type: 'ignore' };
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch {
    const excerpt = data.length > 80 ? `${data.slice(0, 80)}…` : data;
    return { type: 'error', message: `malformed event from the service (not JSON): ${excerpt}`, code: 'malformed_event', raw: data };
  }
  const failure = errorOf(body);
  if (failure) return { type: 'error', ...failure, raw: body };
  return { type: 'json', body };
}
