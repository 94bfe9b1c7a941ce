/**
 * stdout for data. Streamed generation produces one small write per token; handing each to the stream costs a
 * syscall, so writes are coalesced per tick of the event loop: the first write of a tick goes out at once (the
 * first token is never held back), the ones after it in the same tick are gathered and handed over together
 * when the tick ends — before the event loop waits for the network again — or as soon as ~16 KiB have gathered.
 * A reader that goes away (`textgen … | head -1` gives EPIPE) is normal use, not a failure: the sink closes
 * quietly and drops what follows.
 */

import { visibleControls, visibleInJson } from './visible.js';

export interface DataSink {
  /**
   * Text from a service (an answer, a model's name, a token): on a terminal its control characters — C0/C1,
   * bidi controls, zero-width characters — are shown escaped, not obeyed (src/output/visible.ts); a pipe gets it
   * as it is. The default way to write: queues text, never throws, does nothing once the sink is closed.
   */
  text(untrusted: string): void;
  /**
   * The explicit opt-out, for text that is not the service's or is already made safe: textgen's own words, JSON
   * and YAML (whose writers quote controls), text painted with textgen's own colour codes after escaping. Grep
   * `out.raw(` to review every place that writes unescaped.
   */
  raw(text: string): void;
  /** JSON or JSONL text (batch records, -o json): on a terminal what JSON leaves raw is written as `\\u` escapes. */
  json(text: string): void;
  /** stdout is a terminal: what `text` escapes for. */
  readonly onTerminal: boolean;
  /**
   * Hands over everything queued and resolves when the stream has accepted all that was written before
   * this call (or the reader has gone away); later writes do not hold it up. Rejects only when the stream failed for another reason (e.g. ENOSPC), so that
   * lost data is reported rather than hidden.
   */
  flush(): Promise<void>;
  /** True once the reader has gone away or the stream has failed. */
  readonly closed: boolean;
  /** Characters queued so far: whether anything was written before a failure. */
  readonly written: number;
}

const COALESCE_LIMIT = 16 * 1024;

/** Error codes that mean "nobody is reading any more" rather than "the write failed". */
const READER_GONE = new Set(['EPIPE', 'ECONNRESET', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_PREMATURE_CLOSE']);

function isReaderGone(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && READER_GONE.has(code);
}

class StreamDataSink implements DataSink {
  readonly #stream: NodeJS.WritableStream;
  readonly onTerminal: boolean;
  #pending: string[] = [];
  #pendingLength = 0;
  /** Open while the current tick's writes are being gathered; its end hands them over. */
  #window: NodeJS.Immediate | undefined;
  /** Writes queued so far, and how many of them the stream has accepted: flush waits on these numbers. */
  #queued = 0;
  #accepted = 0;
  #waitingForDrain = false;
  #closed = false;
  #failure: unknown;
  #waiters: Array<{ upTo: number; resolve: () => void; reject: (error: unknown) => void }> = [];

  constructor(stream: NodeJS.WritableStream, onTerminal: boolean) {
    this.#stream = stream;
    this.onTerminal = onTerminal;
    // Without a listener an EPIPE 'error' event would crash the process with a stack trace.
    stream.on('error', (error) => this.#fail(error));
  }

  get closed(): boolean {
    return this.#closed;
  }

  #written = 0;
  get written(): number {
    return this.#written;
  }

  text(untrusted: string): void {
    this.raw(this.onTerminal ? visibleControls(untrusted) : untrusted);
  }

  json(text: string): void {
    this.raw(this.onTerminal ? visibleInJson(text) : text);
  }

  raw(text: string): void {
    if (this.#closed || text.length === 0) return;
    this.#written += text.length;
    this.#queued += 1;
    if (this.#window === undefined && this.#pending.length === 0 && !this.#waitingForDrain) {
      // The first write of a tick: out at once, then the rest of the tick gathers behind it.
      this.#pending.push(text);
      this.#pendingLength = text.length;
      this.#handOver();
      if (!this.#closed) this.#openWindow();
      return;
    }
    this.#pending.push(text);
    this.#pendingLength += text.length;
    if (this.#pendingLength >= COALESCE_LIMIT) this.#handOver();
    else if (this.#window === undefined) this.#openWindow();
  }

  /**
   * setImmediate, not a microtask: it runs after the current I/O callback and every await it triggers, so all
   * the tokens parsed from one network chunk leave in one write, and before the loop blocks on I/O again.
   */
  #openWindow(): void {
    this.#window = setImmediate(() => {
      this.#window = undefined;
      this.#handOver();
    });
  }

  flush(): Promise<void> {
    this.#handOver();
    return new Promise((resolve, reject) => {
      this.#waiters.push({ upTo: this.#queued, resolve, reject });
      this.#settle();
    });
  }

  #handOver(): void {
    // While waiting for 'drain' the text stays here; the drain handler hands it over.
    if (this.#closed || this.#waitingForDrain || this.#pending.length === 0) return;
    const chunk = this.#pending.length === 1 ? this.#pending[0]! : this.#pending.join('');
    this.#pending = [];
    this.#pendingLength = 0;
    const upTo = this.#queued;
    let accepted: boolean;
    try {
      // Write callbacks come in order, so the last one called tells how far the stream has got.
      accepted = this.#stream.write(chunk, (error?: Error | null) => {
        if (error) {
          this.#fail(error);
          return;
        }
        this.#accepted = upTo;
        this.#settle();
      });
    } catch (error) {
      // A stream may throw instead of calling back; that is a failed write like any other.
      this.#fail(error);
      return;
    }
    if (!accepted && !this.#closed) {
      this.#waitingForDrain = true;
      this.#stream.once('drain', () => {
        this.#waitingForDrain = false;
        this.#handOver();
      });
    }
  }

  #fail(error: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    if (!isReaderGone(error)) this.#failure = error;
    this.#pending = [];
    this.#pendingLength = 0;
    if (this.#window !== undefined) {
      clearImmediate(this.#window);
      this.#window = undefined;
    }
    this.#settle();
  }

  #settle(): void {
    if (this.#closed) {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const waiter of waiters) {
        if (this.#failure === undefined) waiter.resolve();
        else waiter.reject(this.#failure);
      }
      return;
    }
    // Waiters were added with non-decreasing targets, so the satisfied ones are at the front.
    while (this.#waiters.length > 0 && this.#waiters[0]!.upTo <= this.#accepted) this.#waiters.shift()!.resolve();
  }
}

/** `terminal`: stdout is a TTY, so service text is escaped (default: the stream's own isTTY). */
export function createDataSink(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  options: { terminal?: boolean } = {},
): DataSink {
  return new StreamDataSink(stream, options.terminal ?? stream.isTTY === true);
}
