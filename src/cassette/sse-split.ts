/**
 * Cuts an event stream's bytes into its events, each with its framing (the `data:` lines and the blank line that
 * ends it, in whatever line endings the service used: LF, CRLF or CR), so a cassette stores and replays the events
 * as they were sent. Bytes, not text: a replay must give back the same bytes, and a chunk may end inside a
 * character. Not the SSE parser (src/http/sse-parser.ts reads fields; this only finds where events end).
 */
export class EventSplitter {
  #pending: Buffer = Buffer.alloc(0);

  /** The events `chunk` completes (none when it ends inside one). */
  push(chunk: Uint8Array): Buffer[] {
    const buf = this.#pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#pending, chunk]);
    const events: Buffer[] = [];
    let eventStart = 0;
    let lineStart = 0;
    let i = 0;
    while (i < buf.length) {
      const c = buf[i]!;
      if (c !== 0x0a && c !== 0x0d) {
        i++;
        continue;
      }
      // A CR at the end of what came so far may be the first half of a CRLF: wait for the next byte.
      if (c === 0x0d && i + 1 === buf.length) break;
      const end = c === 0x0d && buf[i + 1] === 0x0a ? i + 2 : i + 1;
      if (i === lineStart) {
        // A blank line: the event that began at eventStart ends here, its blank line included.
        events.push(buf.subarray(eventStart, end));
        eventStart = end;
      }
      lineStart = end;
      i = end;
    }
    this.#pending = buf.subarray(eventStart);
    return events;
  }

  /** What is left when the stream ends: an event the service did not end with a blank line. */
  flush(): Buffer | undefined {
    const rest = this.#pending;
    this.#pending = Buffer.alloc(0);
    return rest.length > 0 ? rest : undefined;
  }
}
