/**
 * Records to stdout in chunks. Records that finish together are gathered (up to 64 KiB, or for at most 50 ms when
 * they come slowly) and handed to the data sink as one write; after every MiB the batch waits until stdout has
 * taken it, so a slow reader holds the batch back instead of filling memory.
 */
import type { DataSink } from '../output/safe-write.js';
import type { RecordSink } from './scheduler.js';

const CHUNK = 64 * 1024;

/** stdout's reader went away (`textgen … --batch big.jsonl | head`): the batch stops, as `yes | head` does. */
export class ReaderGone extends Error {
  constructor() {
    super('stdout was closed by its reader');
  }
}
const LINGER_MS = 50;
const FLUSH_EVERY = 1024 * 1024;

export class StdoutRecordSink implements RecordSink {
  #parts: string[] = [];
  #size = 0;
  #unflushed = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly out: DataSink) {}

  write(_line: number, record: string): void | Promise<void> {
    if (this.out.closed) throw new ReaderGone();
    this.#parts.push(record);
    this.#size += record.length;
    if (this.#size >= CHUNK) return this.#handOver();
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.#handOver();
    }, LINGER_MS);
    return undefined;
  }

  #handOver(): Promise<void> | undefined {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#parts.length === 0) return undefined;
    const chunk = this.#parts.join('');
    this.#parts = [];
    this.#size = 0;
    this.out.json(chunk);
    this.#unflushed += chunk.length;
    if (this.#unflushed < FLUSH_EVERY) return undefined;
    this.#unflushed = 0;
    return this.out.flush();
  }

  /** Everything gathered goes out; resolves when stdout has taken it. */
  async finish(): Promise<void> {
    await this.#handOver();
    await this.out.flush();
  }
}
