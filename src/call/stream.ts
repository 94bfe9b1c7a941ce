/**
 * Reading an answer that streams (SSE), for every streamed operation — `complete`, `deployment
 * text-generate(-stream)`, `chat` and both batches' deadline lines: the SSE parser, the adapter's decoder, the
 * silence watchdog, the stream-shape check and the wrapping of every way a stream can break off. The caller only
 * aggregates and presents what `onChunk` hands it. Written once so that every streaming command behaves alike
 * (test/faults/streaming-commands.test.ts):
 * - an error event, a cut connection, a malformed event, silence for --timeout (keep-alive comments do not count)
 *   or a stream that ends before the service said why it stopped: "<kind> stream broke off: …" (exit 6), after
 *   `stopped('error')` has shown the text that came;
 * - a stream of nothing of the protocol's shape: UnexpectedAnswer (exit 4) quoting what came;
 * - Ctrl-C: `stopped('cancelled')`, then Interrupted (exit 130);
 * - the client-side time limit: 'time_limit', the text so far kept by the caller.
 */
import { Interrupted, NetworkError, StreamError, isTextgenError } from '../contract/errors.js';
import type { HttpResponse } from '../contract/http.js';
import type { StreamStepOf } from '../contract/adapter.js';
import type { SseEvent } from '../contract/http.js';
import type { SseParser } from '../http/sse-parser.js';
import { brokeOff } from './answer.js';
import type { CallGuards } from './guards.js';
import { StreamShape } from './stream-shape.js';

/** When a stream that ended without its end marker still owes a stop reason for every answer. */
export type StopReasonRule =
  /** Always (chat: every chat-completions protocol states `finish_reason`). */
  | 'always'
  /** Unless the end marker came (protocols whose last event states it: capabilities.statesStopReason). */
  | 'without-end-marker'
  /** Never (a protocol that does not say why it stopped). */
  | 'never';

export interface StreamReading<Chunk> {
  /** The provider's kind, for messages. */
  kind: string;
  res: HttpResponse;
  decode: (event: SseEvent) => StreamStepOf<Chunk>;
  /** The profile's secrets, masked in the excerpt of an UnexpectedAnswer. */
  secrets: readonly string[];
  guards: CallGuards;
  stopReason: StopReasonRule;
  /** What the stream brings ("generation", "answer"), for the message of a stream cut before its end. */
  what: string;
  onChunk(chunk: Chunk, wireBody: unknown): void;
  /** Some answer has not said why it stopped (the aggregator's word). */
  unfinished(): boolean;
  /** The stream ends early: show or keep what came, before the error is thrown. */
  stopped(reason: 'error' | 'cancelled'): Promise<void> | void;
}

/**
 * Whether an answer streams (SSE, for readStream) or comes whole (for readWhole): the one test of it, so every
 * streaming command treats a service that answers a stream request with a whole JSON answer alike.
 */
export function isEventStream(res: Pick<HttpResponse, 'headers'>): boolean {
  return (res.headers['content-type'] ?? '').includes('text/event-stream');
}

/**
 * The events of a body that pushes its chunks (HttpResponse.push): parsed and handled in the callback that brought
 * each chunk, with no promise per chunk or per event. Resolves with what stopped it (undefined: the body ended), or
 * rejects with the body's failure or what parsing or handling an event threw; the body is stopped first.
 */
function pushedEvents(
  push: NonNullable<HttpResponse['push']>,
  parser: SseParser,
  onEvent: (event: SseEvent) => EventOutcome,
): Promise<EventOutcome | undefined> {
  return new Promise((resolve, reject) => {
    let done = false;
    let stop: (() => void) | undefined;
    const finish = (outcome: EventOutcome | undefined): void => {
      if (done) return;
      done = true;
      stop?.();
      resolve(outcome);
    };
    const fail = (error: unknown): void => {
      if (done) return;
      done = true;
      stop?.();
      reject(error);
    };
    /** True once an event stopped the reading. */
    const handle = (events: SseEvent[]): boolean => {
      for (const event of events) {
        const outcome = onEvent(event);
        if (outcome !== 'go') {
          finish(outcome);
          return true;
        }
      }
      return false;
    };
    stop = push({
      chunk(chunk) {
        if (done) return;
        try {
          handle(parser.push(chunk));
        } catch (error) {
          fail(error);
        }
      },
      end() {
        if (done) return;
        try {
          if (!handle(parser.end())) finish(undefined);
        } catch (error) {
          fail(error);
        }
      },
      fail,
    });
    // The body may have been whole already: push() delivered it and finished before returning `stop`.
    if (done) stop();
  });
}

/** How a stream that did not fail ended: complete, or cut by the client-side time limit (the caller keeps the text). */
export type StreamEnd = 'complete' | 'time_limit';

/** What one event asks of the reading: go on, stop at the end marker, or stop at the service's error event. */
type EventOutcome = 'go' | 'end' | { code?: string | undefined; message: string };

export async function readStream<Chunk>(r: StreamReading<Chunk>): Promise<StreamEnd> {
  const sse = await import('../http/sse-parser.js');
  const shape = new StreamShape();
  const { guards, kind } = r;
  let ended = false;
  const onEvent = (event: SseEvent): EventOutcome => {
    guards.heard();
    const step = r.decode(event);
    shape.see(event, step);
    if (step.type === 'ignore') return 'go';
    if (step.type === 'end') {
      ended = true;
      // What may follow the end marker is only the body's own end: read it, so the connection is kept.
      r.res.release?.();
      return 'end';
    }
    if (step.type === 'error') return step;
    r.onChunk(step.chunk, step.wireBody);
    return 'go';
  };
  guards.heard();
  try {
    let stoppedBy: EventOutcome | undefined;
    if (r.res.push) stoppedBy = await pushedEvents(r.res.push, new sse.SseParser(), onEvent);
    else
      for await (const event of sse.parseSse(r.res.body)) {
        stoppedBy = onEvent(event);
        if (stoppedBy !== 'go') break;
      }
    if (typeof stoppedBy === 'object') {
      await r.stopped('error');
      throw brokeOff(kind, `${stoppedBy.code ? `${stoppedBy.code} ` : ''}${stoppedBy.message}`);
    }
  } catch (e) {
    if (e instanceof StreamError) throw e;
    if (guards.silent()) {
      await r.stopped('error');
      throw brokeOff(
        kind,
        `${kind} sent nothing for ${guards.silenceMs / 1000} s but keep-alive comments, no event (--timeout)`,
      );
    }
    if (e instanceof Interrupted && guards.timedOut()) return 'time_limit';
    if (e instanceof Interrupted || guards.cancelled()) {
      await r.stopped('cancelled');
      throw e instanceof Interrupted ? e : new Interrupted();
    }
    await r.stopped('error');
    throw brokeOff(kind, isTextgenError(e) ? e.message : (e as Error).message, {
      cause: e,
      ...(e instanceof NetworkError && e.hint ? { hint: e.hint } : {}),
    });
  } finally {
    guards.unwatch();
  }
  const unexpected = shape.verdict(
    { provider: kind, status: r.res.status, secrets: r.secrets },
    ended,
    r.stopReason !== 'never',
  );
  if (unexpected) throw unexpected;
  const owed = r.stopReason === 'always' || (r.stopReason === 'without-end-marker' && !ended);
  if (owed && r.unfinished()) {
    await r.stopped('error');
    throw brokeOff(kind, `the stream ended before the service said the ${r.what} was finished`);
  }
  return 'complete';
}
