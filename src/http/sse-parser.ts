/**
 * Server-Sent Events, by the WHATWG "event stream interpretation" rules, for every provider.
 * One deliberate difference: the pending event is also dispatched at end of body, because real
 * servers (Triton, some proxies) close the stream without the final blank line.
 */

export interface SseEvent {
  /** The `event` field; "message" when unset or empty. */
  event: string;
  /** `data` lines joined with "\n". */
  data: string;
  /** The last non-empty event id seen on the stream so far (it persists across events, as in EventSource). */
  id?: string;
  /** The last valid `retry` value seen on the stream so far (a connection setting, not a per-event one). */
  retry?: number;
}

const LF = 0x0a;
const SPACE = 0x20;
const BOM = '\uFEFF';
const DIGITS_ONLY = /^[0-9]+$/;

export class SseParser {
  // ignoreBOM keeps the decoder from eating a BOM itself, so string and byte input strip exactly one, here.
  #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  #decoderUsed = false;
  #atStart = true;
  /** The previous chunk ended in CR: an LF opening the next chunk belongs to the same line end. */
  #pendingCR = false;
  /** Pieces of a line whose end has not arrived yet; joined once, when it does (no O(n²) re-concatenation). */
  #partial: string[] = [];
  #eventType = '';
  /** null = no `data` line yet, which is different from one empty `data:` line. */
  #data: string | null = null;
  #lastId = '';
  #retry: number | undefined;

  push(chunk: Uint8Array | string): SseEvent[] {
    const events: SseEvent[] = [];
    this.#feed(this.#decode(chunk), events);
    return events;
  }

  /** The body is over: flush the decoder, treat an unterminated last line as a line, dispatch what is pending. */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.#decoderUsed) {
      this.#feed(this.#decoder.decode(), events);
      this.#decoderUsed = false;
    }
    if (this.#partial.length > 0) {
      const line = this.#partial.join('');
      this.#partial = [];
      this.#processLine(line, events);
    }
    this.#pendingCR = false;
    this.#dispatch(events);
    return events;
  }

  #decode(chunk: Uint8Array | string): string {
    if (typeof chunk !== 'string') {
      this.#decoderUsed = true;
      return this.#decoder.decode(chunk, { stream: true });
    }
    if (!this.#decoderUsed) return chunk;
    // Bytes still held by the decoder come before this string.
    this.#decoderUsed = false;
    return this.#decoder.decode() + chunk;
  }

  #feed(input: string, events: SseEvent[]): void {
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
    // Both positions are cached and only searched again once passed, so each chunk is scanned once per character class.
    let nextLF = text.indexOf('\n', pos);
    let nextCR = text.indexOf('\r', pos);
    while (nextLF !== -1 || nextCR !== -1) {
      const end = nextCR === -1 ? nextLF : nextLF === -1 ? nextCR : Math.min(nextLF, nextCR);
      let line = text.slice(pos, end);
      if (this.#partial.length > 0) {
        this.#partial.push(line);
        line = this.#partial.join('');
        this.#partial = [];
      }
      this.#processLine(line, events);
      pos = end + 1;
      if (end === nextCR) {
        if (pos === length) this.#pendingCR = true;
        else if (text.charCodeAt(pos) === LF) pos += 1;
      }
      if (nextLF !== -1 && nextLF < pos) nextLF = text.indexOf('\n', pos);
      if (nextCR !== -1 && nextCR < pos) nextCR = text.indexOf('\r', pos);
    }
    if (pos < length) this.#partial.push(pos === 0 ? text : text.slice(pos));
  }

  #processLine(line: string, events: SseEvent[]): void {
    if (line.length === 0) {
      this.#dispatch(events);
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) return; // comment, e.g. ": keep-alive"
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      const start = line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1;
      value = line.slice(start);
    }
    switch (field) {
      case 'data':
        this.#data = this.#data === null ? value : `${this.#data}\n${value}`;
        break;
      case 'event':
        this.#eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.#lastId = value;
        break;
      case 'retry':
        if (DIGITS_ONLY.test(value)) this.#retry = Number(value);
        break;
      default:
        // Unknown fields are ignored, as the standard says.
        break;
    }
  }

  #dispatch(events: SseEvent[]): void {
    const data = this.#data;
    const type = this.#eventType;
    this.#data = null;
    this.#eventType = '';
    if (data === null) return;
    const event: SseEvent = { event: type === '' ? 'message' : type, data };
    if (this.#lastId !== '') event.id = this.#lastId;
    if (this.#retry !== undefined) event.retry = this.#retry;
    events.push(event);
  }
}

export async function* parseSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  for await (const chunk of body) {
    for (const event of parser.push(chunk)) yield event;
  }
  for (const event of parser.end()) yield event;
}
