/**
 * Wraps a transport's response (transport.ts) in the `HttpResponse` the rest of the code speaks, so that a failure
 * while the body streams in surfaces as NetworkError or Interrupted, never as a transport's own error.
 * Loaded lazily (only client.ts imports it, inside `send`).
 */
import { pipeline } from 'node:stream';
import { ApiError, Interrupted, NetworkError, TextgenError } from '../contract/errors.js';
import { jsonDepthExceededAt, MAX_ANSWER_BYTES, MAX_ANSWER_DEPTH } from '../contract/json-depth.js';
import { describeBodyFailure, type FailureContext } from './network-error.js';
import { redactText, type KnownSecrets } from '../contract/redact.js';
import type { BodySink, HttpResponse } from '../contract/http.js';
import type { TransportBody, TransportResponse } from './transport.js';

const EXCERPT_LENGTH = 200;
/**
 * What release() reads of a body after its end marker to keep the connection: services end the body right after
 * the marker (the last chunk of a chunked body, often in the same packet), so a little and briefly is plenty; a body
 * that goes on past either is cut, as before.
 */
const RELEASE_LIMIT_BYTES = 64 * 1024;
const RELEASE_WAIT_MS = 2_000;
/** One decoder for every answer: `decode()` without `stream` keeps no state between calls. */
const UTF8 = new TextDecoder();

/** Lower-case names; repeated headers joined with ", " as HTTP allows. */
export function flattenHeaders(headers: TransportResponse['headers']): Record<string, string> {
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
  secrets: readonly string[] | KnownSecrets;
}

/** What `accept-encoding` the client sends: the encodings `decoded` undoes (gateways compress answers). */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** The content-encodings `decoded` undoes; any other is passed on as it came. */
const ENCODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br']);
const encodingOf = (headers: Record<string, string>): string =>
  String(headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
const encoded = (headers: Record<string, string>): boolean => ENCODINGS.has(encodingOf(headers));

/** What wrapResponse asks of a body's source: a Node stream, or a transport's own (TransportResponse.listen). */
interface BodyControl {
  pause(): unknown;
  resume(): unknown;
  isPaused(): boolean;
  destroy(error?: Error): unknown;
}

/**
 * The body with its content-encoding undone (gzip, deflate, br), chunk by chunk so a compressed event stream still
 * streams. Errors of the raw body reach the decoded one (pipeline), so a connection cut mid-answer stays a cut; and the
 * size cap below counts decoded bytes, so a compression bomb stops at the cap like any other answer.
 */
function decoded(data: TransportResponse, headers: Record<string, string>): TransportBody {
  const encoding = encodingOf(headers);
  if (!ENCODINGS.has(encoding)) return data.body;
  // Loaded only for an encoded answer: node:zlib costs every other request about a millisecond at start-up.
  const zlib = process.getBuiltinModule('node:zlib');
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : zlib.createBrotliDecompress();
  pipeline(data.body, decoder, () => undefined);
  return decoder;
}

/** A response whose body can be ended from outside, with the error its reader gets. */
export interface WrappedResponse extends HttpResponse {
  cancel(error: Error): void;
  /**
   * The whole body once it has ended, or the error `body` would throw: what readWholeResponse needs, without an
   * async generator and a promise per chunk (a batch reads thousands of answers). Like `body`, only once.
   */
  whole(): Promise<Buffer>;
}

/** `headers`: the answer's, flattened (the client has them already; a batch makes thousands of answers). */
export function wrapResponse(
  data: TransportResponse,
  ctx: ResponseContext,
  headers: Record<string, string> = flattenHeaders(data.headers),
): WrappedResponse {
  const { statusCode } = data;
  let consumed = false;

  /*
   * The body is taken in flowing mode into a small queue from the moment the headers arrive, not
   * with `for await` when the caller gets round to it: when a connection breaks, Node destroys the
   * stream and throws away what it had buffered, but the text that did arrive before the break must
   * still reach the user (docs/design.md §4: partial output). The queue pauses the socket past 64 chunks.
   */
  const queue: Uint8Array[] = [];
  let head = 0;
  let failure: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  let received = 0;
  // whole() takes everything as it comes: the queue is not paused for a reader that drains it only at the end.
  let collecting = false;
  const tooLarge = () => tooLargeError(ctx.failure.service, statusCode);
  // An event stream is read event by event, never held whole: the SSE parser bounds each line and event (16 MiB),
  // and the stream itself may go on as long as the service generates. What is buffered is bounded: a whole answer
  // here, and text() below.
  const bounded = !(headers['content-type'] ?? '').includes('text/event-stream');
  // After release(): how much of what is left has been read and dropped.
  let released = false;
  let dropped = 0;
  // release(): what is left is read for a short while at most; the end of the body ends the wait.
  let releaseTimer: NodeJS.Timeout | undefined;
  const onData = (chunk: Uint8Array): void => {
    if (released) {
      dropped += chunk.length;
      if (dropped > RELEASE_LIMIT_BYTES) source.destroy();
      return;
    }
    received += chunk.length;
    if (bounded && received > MAX_ANSWER_BYTES && failure === undefined) {
      // Read no further: what came so far still reaches the reader, then this error.
      failure = tooLarge();
      source.destroy();
      notify();
      return;
    }
    queue.push(chunk);
    if (!collecting && queue.length - head > 64) source.pause();
    notify();
  };
  const onEnd = (): void => {
    ended = true;
    clearTimeout(releaseTimer);
    notify();
  };
  const onError = (err: unknown): void => {
    // The first failure is the one to report: cancel() destroys the stream, which then errors on its own.
    failure ??= err;
    clearTimeout(releaseTimer);
    notify();
  };
  let source: BodyControl;
  if (data.listen !== undefined && !encoded(headers)) {
    // The transport hands the body on itself (lean-transport.ts): no stream in between.
    const own = data.listen({ data: onData, end: onEnd, error: onError });
    source = own;
    own.start();
  } else {
    const stream = decoded(data, headers);
    source = stream;
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', () => {
      // Closed without 'end' and without an error: the peer went away mid-body.
      if (!ended && failure === undefined)
        failure = Object.assign(new Error('other side closed'), { code: 'UND_ERR_CLOSED' });
      clearTimeout(releaseTimer);
      notify();
    });
  }

  /** What the reader gets for a failure of the body (the same for `body` and `whole`). */
  const bodyError = (): unknown => {
    if (ctx.signal?.aborted) return new Interrupted();
    if (failure instanceof TextgenError) return failure;
    return describeBodyFailure(failure, ctx.failure);
  };

  function whole(): Promise<Buffer> {
    if (consumed) return Promise.reject(new Error('the response body can be read only once'));
    consumed = true;
    collecting = true;
    if (source.isPaused()) source.resume();
    return new Promise<Buffer>((resolve, reject) => {
      const settle = (): void => {
        // As chunks(): an ended body is whole, even when an error came after its end.
        if (ended) resolve(Buffer.concat(queue.slice(head)));
        else if (failure !== undefined) {
          source.destroy();
          reject(bodyError());
        } else wake = settle;
      };
      settle();
    });
  }

  /**
   * The queue's chunks, as an iterator written by hand rather than an async generator: a generator costs several
   * promise turns per chunk, and a stream hands on one chunk per token (a gateway, a chat). Stopping early
   * (`return()`, as `for await` does on break or throw) frees the socket instead of leaking it.
   */
  function chunks(): AsyncIterator<Uint8Array> {
    let over = false;
    const stop = (): void => {
      if (over) return;
      over = true;
      // Released: what is left of the body is being read to its end, which keeps the connection.
      if (!released) source.destroy();
    };
    const next = (): Promise<IteratorResult<Uint8Array>> => {
      if (over) return Promise.resolve({ value: undefined, done: true });
      if (head < queue.length) {
        const chunk = queue[head] as Uint8Array;
        queue[head] = undefined as unknown as Uint8Array;
        head += 1;
        if (head > 1024 && head * 2 > queue.length) {
          queue.splice(0, head);
          head = 0;
        }
        if (queue.length - head < 16 && source.isPaused()) source.resume();
        return Promise.resolve({ value: chunk, done: false });
      }
      if (ended) {
        over = true;
        return Promise.resolve({ value: undefined, done: true });
      }
      if (failure !== undefined) {
        stop();
        return Promise.reject(bodyError());
      }
      return new Promise<void>((resolve) => {
        wake = resolve;
      }).then(next);
    };
    let claimed = false;
    const iterator: AsyncIterator<Uint8Array> = {
      // The first call claims the body (`for await` keeps the method it got first, so it is not swapped).
      next: () => {
        if (!claimed) {
          if (consumed) return Promise.reject(new Error('the response body can be read only once'));
          consumed = claimed = true;
        }
        return next();
      },
      return: () => {
        stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
    return iterator;
  }

  const body: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => chunks() };

  /** HttpResponse.push: the queue drained into the sink each time `notify` runs, i.e. in the 'data' callback itself. */
  function push(sink: BodySink): () => void {
    if (consumed) throw new Error('the response body can be read only once');
    consumed = true;
    let over = false;
    const deliver = (): void => {
      while (!over && head < queue.length) {
        const chunk = queue[head] as Uint8Array;
        queue[head] = undefined as unknown as Uint8Array;
        head += 1;
        sink.chunk(chunk);
      }
      if (over) return;
      // Each chunk is handed on as it comes: the queue never holds more than the one being delivered.
      queue.length = head = 0;
      if (source.isPaused() && !released) source.resume();
      if (ended) {
        over = true;
        sink.end();
      } else if (failure !== undefined) {
        over = true;
        if (!released) source.destroy();
        sink.fail(bodyError());
      } else wake = deliver;
    };
    deliver();
    return (): void => {
      if (over) return;
      over = true;
      wake = undefined;
      if (!released) source.destroy();
    };
  }

  async function text(): Promise<string> {
    const parts: Uint8Array[] = [];
    let size = 0;
    for await (const part of body) {
      size += part.length;
      if (size > MAX_ANSWER_BYTES) throw tooLarge();
      parts.push(part);
    }
    return UTF8.decode(Buffer.concat(parts));
  }

  return {
    status: statusCode,
    headers,
    body,
    push,
    text,
    async json(): Promise<unknown> {
      return parseJsonAnswer(await text(), statusCode, ctx);
    },
    whole,
    release(): void {
      if (released || ended || failure !== undefined) return;
      released = true;
      queue.length = head = 0;
      if (source.isPaused()) source.resume();
      releaseTimer = setTimeout(() => source.destroy(), RELEASE_WAIT_MS);
      releaseTimer.unref();
    },
    cancel(error: Error): void {
      if (ended || failure !== undefined) return;
      failure = error;
      source.destroy();
      notify();
    },
  };
}

function parseJsonAnswer(raw: string, statusCode: number, ctx: ResponseContext): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    const shown = raw.trim() === '' ? 'an empty body' : `"${redactText(excerpt(raw), ctx.secrets)}"`;
    throw new Error(
      `${ctx.failure.service} at ${ctx.failure.origin} answered HTTP ${statusCode} with ${shown} where JSON was expected`,
    );
  }
}

/** The error a whole answer larger than MAX_ANSWER_BYTES ends with. */
function tooLargeError(service: string, status: number): ApiError {
  return new ApiError({
    provider: service,
    status,
    message: `the answer is larger than ${MAX_ANSWER_BYTES / (1024 * 1024)} MiB; textgen reads at most that much of an answer`,
  });
}

/** The error of a JSON answer that trickles in for longer than twice --timeout after its headers. */
function tooSlowError(ctx: ResponseContext): NetworkError {
  const { service, origin, timeoutMs } = ctx.failure;
  return new NetworkError(
    `${service} at ${origin} did not finish sending its answer within ${(2 * timeoutMs) / 1000} s of its headers (twice --timeout)`,
  );
}

/**
 * Reads a whole (non-event-stream) answer inside the client's retry loop, so that a connection that breaks
 * halfway through a JSON answer is retried like one that broke before the headers: nothing was shown yet.
 */
export async function readWholeResponse(res: WrappedResponse, ctx: ResponseContext): Promise<HttpResponse> {
  // --timeout bounds silence; an answer that trickles in (whitespace, a byte at a time) for ever is bounded whole:
  // once the headers are in, the rest of a JSON answer gets twice --timeout (so that plain silence is still
  // reported as silence, by the idle timer, first).
  const { timeoutMs } = ctx.failure;
  const timer = timeoutMs > 0 ? setTimeout(() => res.cancel(tooSlowError(ctx)), 2 * timeoutMs) : undefined;
  let bytes: Buffer;
  try {
    bytes = await res.whole();
  } finally {
    clearTimeout(timer);
  }
  return wholeAnswer(bytes, res.status, res.headers, ctx);
}

/**
 * The same for a transport that reads whole bodies itself (`TransportResponse.whole`, the lean transport): no
 * stream, no wrapper, the same bounds and errors. Undefined when the answer must be read as a stream: an event
 * stream, or a compressed body.
 */
export function readWholeDirect(
  data: TransportResponse,
  ctx: ResponseContext,
  headers: Record<string, string>,
): Promise<HttpResponse> | undefined {
  if (data.whole === undefined || (headers['content-type'] ?? '').includes('text/event-stream')) return undefined;
  if (headers['content-encoding'] !== undefined && headers['content-encoding'].trim() !== '') return undefined;
  const { statusCode } = data;
  const limits = {
    maxBytes: MAX_ANSWER_BYTES,
    tooLarge: () => tooLargeError(ctx.failure.service, statusCode),
    wholeMs: ctx.failure.timeoutMs > 0 ? 2 * ctx.failure.timeoutMs : 0,
    tooSlow: () => tooSlowError(ctx),
  };
  return data.whole(limits).then(
    (bytes) => wholeAnswer(bytes, statusCode, headers, ctx),
    (failure: unknown) => {
      // As wrapResponse's readers: the user's abort, an error of ours as it is, the transport's in words.
      if (ctx.signal?.aborted) throw new Interrupted();
      if (failure instanceof TextgenError) throw failure;
      throw describeBodyFailure(failure, ctx.failure);
    },
  );
}

function wholeAnswer(
  bytes: Buffer,
  status: number,
  headers: Record<string, string>,
  ctx: ResponseContext,
): HttpResponse {
  const decoded = UTF8.decode(bytes);
  const tooDeep = /^\s*[[{]/.test(decoded) ? jsonDepthExceededAt(decoded, MAX_ANSWER_DEPTH) : undefined;
  if (tooDeep !== undefined) {
    throw new ApiError({
      provider: ctx.failure.service,
      status,
      message: `the answer is JSON nested more than ${MAX_ANSWER_DEPTH} levels deep; textgen does not read it`,
    });
  }
  const text = async (): Promise<string> => decoded;
  return {
    status,
    headers,
    body: {
      async *[Symbol.asyncIterator]() {
        if (bytes.length > 0) yield bytes;
      },
    },
    text,
    json: async () => parseJsonAnswer(await text(), status, ctx),
  };
}
