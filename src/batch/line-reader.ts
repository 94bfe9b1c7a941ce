/**
 * Lines of a stream, read chunk by chunk: the input of a batch may hold a million lines and is never read whole.
 * A line ends at LF (a CR before it is dropped); a last line without LF is still a line (it may be truncated).
 * Bytes are decoded per line, so a UTF-8 character split across chunks arrives whole.
 */
import { open } from 'node:fs/promises';
import { UsageError } from '../errors.js';

const NEWLINE = 0x0a;
const CR = 0x0d;

function decode(buf: Buffer, start: number, end: number): string {
  return buf.toString('utf8', start, end > start && buf[end - 1] === CR ? end - 1 : end);
}

export async function* readLines(stream: AsyncIterable<Buffer | string>): AsyncGenerator<string, void, undefined> {
  let carry: Buffer | undefined;
  for await (const chunk of stream) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    let nl = buf.indexOf(NEWLINE);
    if (carry !== undefined && nl !== -1) {
      // Only the piece up to the first newline joins the carry: a long line costs one copy, not one per chunk.
      const joined = Buffer.concat([carry, buf.subarray(0, nl + 1)]);
      carry = undefined;
      yield decode(joined, 0, joined.length - 1);
      start = nl + 1;
      nl = buf.indexOf(NEWLINE, start);
    }
    while (nl !== -1) {
      yield decode(buf, start, nl);
      start = nl + 1;
      nl = buf.indexOf(NEWLINE, start);
    }
    if (start < buf.length) {
      buf = buf.subarray(start);
      carry = carry === undefined ? Buffer.from(buf) : Buffer.concat([carry, buf]);
    }
  }
  if (carry !== undefined && carry.length > 0) yield decode(carry, 0, carry.length);
}

/** An open input file; opening first turns a missing or unreadable file into a usage error before anything is sent. */
export interface OpenedFile {
  stream: NodeJS.ReadableStream & AsyncIterable<Buffer>;
  close(): Promise<void>;
}

export async function openInput(flag: string, path: string): Promise<OpenedFile> {
  try {
    const handle = await open(path, 'r');
    const stat = await handle.stat();
    if (stat.isDirectory()) {
      await handle.close();
      throw new UsageError(`${flag}: ${path} is a directory, not a JSONL file`);
    }
    const stream = handle.createReadStream({ highWaterMark: 64 * 1024, autoClose: true });
    return {
      stream,
      close: async () => {
        stream.destroy();
      },
    };
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(code ?? (e as Error).message);
    throw new UsageError(`${flag}: cannot read ${path}: ${why}`, { cause: e });
  }
}

/** How many lines a file has (LF count, plus a last line without LF): one fast pass, for the progress ETA. */
export async function countLines(path: string, signal?: AbortSignal): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(256 * 1024);
    let lines = 0;
    let lastByte = NEWLINE;
    for (;;) {
      if (signal?.aborted) return lines;
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      let i = buf.indexOf(NEWLINE, 0);
      while (i !== -1 && i < bytesRead) {
        lines++;
        i = buf.indexOf(NEWLINE, i + 1);
      }
      lastByte = buf[bytesRead - 1] as number;
    }
    return lastByte === NEWLINE ? lines : lines + 1;
  } finally {
    await handle.close();
  }
}
