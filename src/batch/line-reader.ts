/**
 * Lines of a stream, read chunk by chunk: the input of a batch may hold a million lines and is never read whole.
 * A line ends at LF (a CR before it is dropped); a last line without LF is still a line (it may be truncated).
 * Bytes are decoded per line, so a UTF-8 character split across chunks arrives whole.
 *
 * The pieces of a line that spans chunks are gathered in a list and joined once, at its end, so a long line costs
 * linear time; and a line is capped like every other input (16 MiB): past the cap its bytes are counted, not kept,
 * and it comes out as a line too long to read, without its text — one bad line, not an exhausted memory.
 */
import { open } from 'node:fs/promises';
import { UsageError } from '../contract/errors.js';

const NEWLINE = 0x0a;
const CR = 0x0d;

/** The longest line a batch input or a --resume file may hold, as for stdin and @files (docs/hostile-input.md). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** One line: its text (undefined when it was longer than the cap), and the bytes it took, LF included. */
export interface LineSpan {
  text: string | undefined;
  bytes: number;
  /** False for a last line without its LF. */
  terminated: boolean;
}

function decode(buf: Buffer, start: number, end: number): string {
  return buf.toString('utf8', start, end > start && buf[end - 1] === CR ? end - 1 : end);
}

export async function* readLineSpans(
  stream: AsyncIterable<Buffer | string>,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<LineSpan, void, undefined> {
  let parts: Buffer[] = [];
  /** Bytes of the line under way (kept or not); over the cap its pieces are dropped. */
  let carried = 0;
  let tooLong = false;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    let nl = buf.indexOf(NEWLINE);
    while (nl !== -1) {
      const length = carried + (nl - start);
      if (tooLong || length > maxLineBytes) {
        yield { text: undefined, bytes: length + 1, terminated: true };
      } else if (parts.length > 0) {
        const joined = Buffer.concat([...parts, buf.subarray(start, nl)], length);
        yield { text: decode(joined, 0, joined.length), bytes: length + 1, terminated: true };
      } else {
        yield { text: decode(buf, start, nl), bytes: length + 1, terminated: true };
      }
      parts = [];
      carried = 0;
      tooLong = false;
      start = nl + 1;
      nl = buf.indexOf(NEWLINE, start);
    }
    if (start < buf.length) {
      carried += buf.length - start;
      if (carried > maxLineBytes) {
        tooLong = true;
        parts = [];
      } else {
        // A copy: the stream may reuse its buffer.
        parts.push(Buffer.from(buf.subarray(start)));
      }
    }
  }
  if (carried > 0) {
    yield {
      text: tooLong ? undefined : decode(Buffer.concat(parts, carried), 0, carried),
      bytes: carried,
      terminated: false,
    };
  }
}

/** The text of each line; a line over the cap comes out as undefined. */
export async function* readLines(
  stream: AsyncIterable<Buffer | string>,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<string | undefined, void, undefined> {
  for await (const span of readLineSpans(stream, maxLineBytes)) yield span.text;
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
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : String(code ?? (e as Error).message);
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
