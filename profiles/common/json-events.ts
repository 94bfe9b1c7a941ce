import type { SseEvent } from '../../src/contract/http.js';
import { answerNumberProblem } from '../../src/contract/answer-numbers.js';
import { jsonDepthExceededAt, MAX_ANSWER_DEPTH } from '../../src/contract/json-depth.js';
import type { StreamStepOf } from '../../src/contract/adapter.js';

/** How a protocol words a failure inside its own body, or undefined when the body is not one. */
export type ErrorReader = (body: unknown) => { message: string; code?: string } | undefined;

/** Turns an event's data into a value, throwing when it is not JSON (JSON.parse, or a faster equivalent). */
export type JsonParse = (data: string) => unknown;

/**
 * The part of decoding a JSON event stream that every protocol shares: `event: error` (body JSON or not), the
 * `[DONE]` marker, empty and `{}` keep-alives, data that is not JSON (a malformed event ends the stream with
 * exit 6), and error payloads inside a 200 stream. What is left is a parsed body for the protocol to map.
 */
export function readJsonEvent(
  event: SseEvent,
  errorOf: ErrorReader,
  parse: JsonParse = JSON.parse,
): StreamStepOf<never> | { type: 'json'; body: unknown } {
  const data = event.data.trim();
  if (event.event === 'close') return { type: 'end' };
  // Nested deeper than any answer: what would walk it later (the output writers) must never see it.
  if (jsonDepthExceededAt(data, MAX_ANSWER_DEPTH) !== undefined) {
    return {
      type: 'error',
      message: `malformed event from the service (JSON nested more than ${MAX_ANSWER_DEPTH} levels deep)`,
      code: 'malformed_event',
      wireBody: data.slice(0, 80),
    };
  }
  if (event.event === 'error') {
    let body: unknown = data;
    try {
      body = JSON.parse(data);
    } catch {
      // Not JSON: the text itself is the message.
    }
    const failure = errorOf(body);
    return {
      type: 'error',
      message: failure?.message ?? (data || 'the service reported an error'),
      ...(failure?.code ? { code: failure.code } : {}),
      wireBody: body,
    };
  }
  if (data === '[DONE]') return { type: 'end' };
  if (data === '' || data === '{}') return { type: 'ignore' };
  let body: unknown;
  try {
    body = parse(data);
  } catch {
    const excerpt = data.length > 80 ? `${data.slice(0, 80)}…` : data;
    return {
      type: 'error',
      message: `malformed event from the service (not JSON): ${excerpt}`,
      code: 'malformed_event',
      wireBody: data,
    };
  }
  const failure = errorOf(body);
  if (failure) return { type: 'error', ...failure, wireBody: body };
  // `1e400`, a negative token count: an event the output cannot carry faithfully (src/contract/answer-numbers.ts).
  const problem = answerNumberProblem(body);
  if (problem !== undefined)
    return {
      type: 'error',
      message: `malformed event from the service: ${problem}`,
      code: 'malformed_event',
      wireBody: body,
    };
  return { type: 'json', body };
}

type PathStep = string | number;

interface Shape {
  /** The data up to the opening quote of the varying string, and from just after its closing quote. */
  prefix: string;
  suffix: string;
  body: unknown;
}

/** Tries in a row that did not pay off before the parser stops looking for a shape (a stream that is not regular). */
const GIVE_UP_AFTER = 3;

/**
 * A JSON.parse for token streams, whose events are the same JSON text again and again except for one string (the
 * token): `{"id":"cmpl-1",…,"choices":[{"text":" fox","index":0,…}]}`. After one full parse it remembers the text
 * around that string; an event with the very same text around a single string literal is the remembered body with
 * that one value replaced — exact, because replacing one string token of a valid JSON text by another changes only
 * that value — so only the literal is decoded. Anything else (another shape, a last event with a finish reason, a
 * literal in doubt) goes through JSON.parse and may become the new shape.
 *
 * Bodies share their unchanged parts with each other: the consumers only read them.
 */
export function createShapeCachingParse(path: readonly PathStep[]): JsonParse {
  const key = `${JSON.stringify(path[path.length - 1])}:`;
  let shape: Shape | undefined;
  let fruitless = 0;
  return (data) => {
    if (shape !== undefined && data.length >= shape.prefix.length + shape.suffix.length + 2) {
      const end = data.length - shape.suffix.length;
      // slice + === rather than startsWith/endsWith: on the sliced strings the SSE parser hands out, V8's
      // startsWith is several times slower than a comparison of two strings.
      if (data.slice(0, shape.prefix.length) === shape.prefix && data.slice(end) === shape.suffix) {
        const value = stringLiteral(data, shape.prefix.length, end);
        if (value !== undefined) {
          fruitless = 0;
          return withValue(shape.body, path, 0, value);
        }
      }
    }
    const body: unknown = JSON.parse(data);
    if (fruitless < GIVE_UP_AFTER) {
      fruitless += 1;
      shape = learnShape(data, body, path, key);
    }
    return body;
  };
}

function valueAt(body: unknown, path: readonly PathStep[]): unknown {
  let at: unknown = body;
  for (const step of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<PathStep, unknown>)[step];
  }
  return at;
}

/** Where the string at `path` sits in `data`, verified by parsing once with a marker in its place. */
function learnShape(data: string, body: unknown, path: readonly PathStep[], key: string): Shape | undefined {
  if (typeof valueAt(body, path) !== 'string') return undefined;
  const keyAt = data.indexOf(key);
  if (keyAt === -1) return undefined;
  let open = keyAt + key.length;
  while (open < data.length && ' \t\r\n'.includes(data.charAt(open))) open += 1;
  if (data.charCodeAt(open) !== QUOTE) return undefined;
  const close = closingQuote(data, open + 1);
  if (close === -1) return undefined;
  const prefix = data.slice(0, open);
  const suffix = data.slice(close + 1);
  // The first such key need not be the one at `path` (a nested object, a duplicate key): a marker tells.
  const marker = '\u0000shape';
  let probe: unknown;
  try {
    probe = JSON.parse(`${prefix}"\\u0000shape"${suffix}`);
  } catch {
    return undefined;
  }
  return valueAt(probe, path) === marker ? { prefix, suffix, body } : undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The index of the quote that closes a string whose content starts at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  let at = text.indexOf('"', from);
  while (at !== -1) {
    let slashes = 0;
    for (let i = at - 1; i >= from && text.charCodeAt(i) === BACKSLASH; i -= 1) slashes += 1;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/** The value of `text[start, end)` when it is exactly one JSON string token, else undefined (the caller then parses it all). */
function stringLiteral(text: string, start: number, end: number): string | undefined {
  const last = end - 1;
  if (text.charCodeAt(start) !== QUOTE || text.charCodeAt(last) !== QUOTE) return undefined;
  for (let i = start + 1; i < last; i += 1) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      // Escapes: JSON.parse decides, and that it is a single string.
      try {
        const value: unknown = JSON.parse(text.slice(start, end));
        return typeof value === 'string' ? value : undefined;
      } catch {
        return undefined;
      }
    }
    if (c === QUOTE || c < 0x20) return undefined;
  }
  return text.slice(start + 1, last);
}

/** A copy of `at` along `path` (and only along it) with the string at its end replaced. */
function withValue(at: unknown, path: readonly PathStep[], depth: number, value: string): unknown {
  if (depth === path.length) return value;
  const step = path[depth] as PathStep;
  if (Array.isArray(at)) {
    const copy = at.slice();
    copy[step as number] = withValue(at[step as number], path, depth + 1, value);
    return copy;
  }
  const record = at as Record<PathStep, unknown>;
  // Spread, then assign: a computed key inside the literal would give every copy a new hidden class.
  const copy = { ...record };
  copy[step] = withValue(record[step], path, depth + 1, value);
  return copy;
}
