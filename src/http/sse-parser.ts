/**
 * Server-Sent Events, by the WHATWG "event stream interpretation" rules, for every provider.
 * One deliberate difference: the pending event is also dispatched at end of body, because real
 * servers (Triton, some proxies) close the stream without the final blank line.
 *
 * This is the hot path of every streamed generation (one call per token), so lines are read in place from
 * the decoded chunk (offsets, not a copy per line) and only the field value is ever sliced out.
 */
import type { SseEvent } from '../contract/http.js';
import { StringDecoder } from 'node:string_decoder';

export interface SseParserOptions {
  /** Longest line, and longest event data, in characters; default MAX_SSE_LINE_LENGTH. */
  maxLength?: number;
}

/**
 * No real event comes near it; a server that never sends a line break (or an endless event) must not be able
 * to eat all memory, so past this the stream is treated as broken.
 */
export const MAX_SSE_LINE_LENGTH = 16 * 1024 * 1024;

/** The stream broke the size limit: callers treat it like any other stream that broke off (exit 6). */
export class SseLimitError extends Error {
  readonly code = 'sse_line_too_long';
  constructor(what: 'line' | 'event', limit: number) {
    super(
      `the service sent ${what === 'line' ? 'a line' : 'an event'} longer than ${describeLength(limit)} characters${what === 'line' ? ' without a line break' : ''}`,
    );
    this.name = 'SseLimitError';
  }
}

function describeLength(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} Mi` : String(n);
}

const LF = 0x0a;
const SPACE = 0x20;
const BOM = '\uFEFF';
const DIGITS_ONLY = /^[0-9]+$/;

export class SseParser {
  /*
   * StringDecoder rather than TextDecoder: the same WHATWG replacement of invalid sequences (U+FFFD), a BOM left
   * in place (stripped once, here, for string and byte input alike), and several times faster on Node 20.
   */
  #decoder = new StringDecoder('utf8');
  #decoderUsed = false;
  #atStart = true;
  /** The previous chunk ended in CR: an LF opening the next chunk belongs to the same line end. */
  #pendingCR = false;
  /** Pieces of a line whose end has not arrived yet; joined once, when it does (no O(n²) re-concatenation). */
  #partial: string[] = [];
  #partialLength = 0;
  #eventType = '';
  /** null = no `data` line yet, which is different from one empty `data:` line. */
  #data: string | null = null;
  #lastId = '';
  #retry: number | undefined;
  readonly #maxLength: number;
  /** Events found by the current push/end call; a field so that the line reader does not pass it around. */
  #out: SseEvent[] = [];
  /** Set once the limit was passed: every later call throws it. */
  #failure: unknown;

  constructor(options: SseParserOptions = {}) {
    this.#maxLength = options.maxLength ?? MAX_SSE_LINE_LENGTH;
  }

  /**
   * Throws SseLimitError when a line or an event grows past the limit; the parser is then spent. Events completed
   * earlier in the same chunk are returned first, and the error is thrown by the next call.
   */
  push(chunk: Uint8Array | string): SseEvent[] {
    const events: SseEvent[] = [];
    this.#out = events;
    this.#guard(() => this.#feed(this.#decode(chunk)));
    return events;
  }

  /** The body is over: flush the decoder, treat an unterminated last line as a line, dispatch what is pending. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    this.#out = events;
    this.#guard(() => {
      if (this.#decoderUsed) {
        this.#feed(this.#decoder.end());
        this.#decoderUsed = false;
      }
      if (this.#partial.length > 0) {
        const line = this.#takePartial('');
        this.#processLine(line, 0, line.length, line.indexOf(':'));
      }
      this.#pendingCR = false;
      this.#dispatch();
    });
    return events;
  }

  #guard(work: () => void): void {
    if (this.#failure !== undefined) throw this.#failure;
    try {
      work();
    } catch (error) {
      // Whatever was held is garbage now; let it go at once rather than with the parser.
      this.#partial = [];
      this.#partialLength = 0;
      this.#data = null;
      this.#failure = error;
      // The events before the oversized line still reach the caller (partial output); the next call throws.
      if (this.#out.length === 0) throw error;
    }
  }

  #decode(chunk: Uint8Array | string): string {
    if (typeof chunk !== 'string') {
      this.#decoderUsed = true;
      return this.#decoder.write(chunk);
    }
    if (!this.#decoderUsed) return chunk;
    // Bytes still held by the decoder come before this string.
    this.#decoderUsed = false;
    return this.#decoder.end() + chunk;
  }

  #takePartial(last: string): string {
    this.#partial.push(last);
    const line = this.#partial.join('');
    this.#partial = [];
    this.#partialLength = 0;
    return line;
  }

  #feed(input: string): void {
    let text = input;
    if (text.length === 0) return;
    if (this.#atStart) {
      this.#atStart = false;
      if (text.startsWith(BOM)) text = text.slice(1);
    }
    let pos = 0;
    if (this.#pendingCR) {
      this.#pendingCR = false;
      if (text.charCodeAt(0) === LF) pos = 1;
    }
    const length = text.length;
    const max = this.#maxLength;
    // Both positions are cached and only searched again once passed, so each chunk is scanned once per character class.
    let nextLF = text.indexOf('\n', pos);
    let nextCR = text.indexOf('\r', pos);
    // The colon too: searching from each line start would rescan the rest of the chunk for lines without one.
    let nextColon = text.indexOf(':', pos);
    while (nextLF !== -1 || nextCR !== -1) {
      const end = nextCR === -1 ? nextLF : nextLF === -1 ? nextCR : Math.min(nextLF, nextCR);
      if (nextColon !== -1 && nextColon < pos) nextColon = text.indexOf(':', pos);
      if (this.#partial.length > 0) {
        if (this.#partialLength + (end - pos) > max) throw new SseLimitError('line', max);
        const line = this.#takePartial(text.slice(pos, end));
        this.#processLine(line, 0, line.length, line.indexOf(':'));
      } else {
        if (end - pos > max) throw new SseLimitError('line', max);
        this.#processLine(text, pos, end, nextColon !== -1 && nextColon < end ? nextColon : -1);
      }
      pos = end + 1;
      if (end === nextCR) {
        if (pos === length) this.#pendingCR = true;
        else if (text.charCodeAt(pos) === LF) pos += 1;
      }
      if (nextLF !== -1 && nextLF < pos) nextLF = text.indexOf('\n', pos);
      if (nextCR !== -1 && nextCR < pos) nextCR = text.indexOf('\r', pos);
    }
    if (pos < length) {
      this.#partialLength += length - pos;
      if (this.#partialLength > max) throw new SseLimitError('line', max);
      this.#partial.push(pos === 0 ? text : text.slice(pos));
    }
  }

  /** The line is `text[start, end)`, its first colon at `colon` (-1: none); read in place, so only a value is copied. */
  #processLine(text: string, start: number, end: number, colon: number): void {
    if (start === end) {
      this.#dispatch();
      return;
    }
    const fieldEnd = colon === -1 ? end : colon;
    if (fieldEnd === start) return; // comment, e.g. ": keep-alive"
    let valueStart = fieldEnd === end ? end : fieldEnd + 1;
    if (valueStart < end && text.charCodeAt(valueStart) === SPACE) valueStart += 1;
    // Fields are told apart by length and spelling without cutting the name out of the line.
    switch (fieldEnd - start) {
      case 4:
        if (text.startsWith('data', start)) this.#addData(valueStart === end ? '' : text.slice(valueStart, end));
        break;
      case 5:
        if (text.startsWith('event', start)) this.#eventType = text.slice(valueStart, end);
        else if (text.startsWith('retry', start)) {
          const value = text.slice(valueStart, end);
          if (DIGITS_ONLY.test(value)) this.#retry = Number(value);
        }
        break;
      case 2:
        if (text.startsWith('id', start)) {
          const value = text.slice(valueStart, end);
          if (!value.includes('\0')) this.#lastId = value;
        }
        break;
      default:
        // Unknown fields are ignored, as the standard says.
        break;
    }
  }

  #addData(value: string): void {
    const data = this.#data;
    if (data === null) {
      this.#data = value;
      return;
    }
    if (data.length + 1 + value.length > this.#maxLength) throw new SseLimitError('event', this.#maxLength);
    this.#data = `${data}\n${value}`;
  }

  #dispatch(): void {
    const data = this.#data;
    const type = this.#eventType;
    this.#data = null;
    this.#eventType = '';
    if (data === null) return;
    const event: SseEvent = { event: type === '' ? 'message' : type, data };
    if (this.#lastId !== '') event.id = this.#lastId;
    if (this.#retry !== undefined) event.retry = this.#retry;
    this.#out.push(event);
  }
}

/**
 * The events of a body, as an async iterator written by hand rather than as an async generator: a generator
 * costs several promise turns per `yield`, which at one event per token was a visible share of a stream's CPU
 * time. Events already parsed are handed out with one resolved promise each. Like the generator it replaces, it
 * releases the body (its `return()`) when the consumer stops early and when the parser throws.
 */
class SseEventIterator implements AsyncIterableIterator<SseEvent> {
  readonly #parser: SseParser;
  readonly #source: AsyncIterator<Uint8Array | string>;
  #events: SseEvent[] = [];
  #at = 0;
  #finished = false;

  constructor(body: AsyncIterable<Uint8Array | string>, options: SseParserOptions) {
    this.#parser = new SseParser(options);
    this.#source = body[Symbol.asyncIterator]();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<SseEvent>> {
    if (this.#at < this.#events.length) {
      const value = this.#events[this.#at] as SseEvent;
      this.#at += 1;
      return Promise.resolve({ value, done: false });
    }
    return this.#fill();
  }

  async return(): Promise<IteratorResult<SseEvent>> {
    if (!this.#finished) {
      this.#finished = true;
      this.#events = [];
      await this.#source.return?.();
    }
    return { value: undefined, done: true };
  }

  async #fill(): Promise<IteratorResult<SseEvent>> {
    while (!this.#finished) {
      const step = await this.#source.next();
      try {
        if (step.done === true) {
          this.#finished = true;
          this.#events = this.#parser.end();
        } else {
          this.#events = this.#parser.push(step.value);
        }
      } catch (error) {
        await this.return();
        throw error;
      }
      this.#at = 0;
      if (this.#events.length > 0) {
        this.#at = 1;
        return { value: this.#events[0] as SseEvent, done: false };
      }
    }
    this.#events = [];
    this.#at = 0;
    return { value: undefined, done: true };
  }
}

export function parseSse(
  body: AsyncIterable<Uint8Array | string>,
  options: SseParserOptions = {},
): AsyncIterableIterator<SseEvent> {
  return new SseEventIterator(body, options);
}

/**
 * The events of a body a network chunk at a time: one await per chunk instead of one per event. For consumers
 * on the hot path (a streamed generation handles one event per token), where the per-event await of `parseSse`
 * is a large share of the CPU time. Never yields an empty array. Releases the body like `parseSse` does.
 */
export async function* parseSseBatches(
  body: AsyncIterable<Uint8Array | string>,
  options: SseParserOptions = {},
): AsyncGenerator<SseEvent[], void, undefined> {
  const parser = new SseParser(options);
  for await (const chunk of body) {
    const events = parser.push(chunk);
    if (events.length > 0) yield events;
  }
  const last = parser.end();
  if (last.length > 0) yield last;
}
