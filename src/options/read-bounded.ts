/**
 * Reading what the user points the CLI at without letting it fill memory or hold the command hostage: at most
 * `limit` bytes, chunk by chunk, so `@/dev/zero`, an endless FIFO or a 50 GB sparse file stop at the bound, and
 * Ctrl-C (the command's abort signal) ends the read at once — even a FIFO nobody writes to, whose open blocks.
 */
import { Interrupted } from '../contract/errors.js';
import { openForReading } from './open-for-reading.js';

/** More than `limit` bytes came; reading stopped there. The caller names the flag and the limit. */
export class TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`holds more than ${sizeText(limit)}`);
  }
}

/** "5 MiB", "16 MiB", "512 KiB": how the limits are written in messages and the docs. */
export function sizeText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (Number.isInteger(mib)) return `${mib} MiB`;
  const kib = bytes / 1024;
  return Number.isInteger(kib) ? `${kib} KiB` : `${bytes} bytes`;
}

/**
 * All of `stream`, or TooLarge as soon as more than `limit` bytes came. Leaving the loop destroys the stream: a
 * writer gets EPIPE, as with `… | head -c N`.
 */
export async function readStreamBounded(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes =
      typeof chunk === 'string'
        ? Buffer.from(chunk, 'utf8')
        : Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(chunk as Uint8Array);
    size += bytes.length;
    if (size > limit) throw new TooLarge(limit);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, size);
}

/**
 * The bytes of the file at `absolutePath` (any kind: regular, FIFO, device), at most `limit`. Errors keep Node's
 * `code` (ENOENT, EISDIR, …) for the caller's message; an abort of `signal` is Interrupted (exit 130).
 */
export async function readFileBounded(absolutePath: string, limit: number, signal?: AbortSignal): Promise<Buffer> {
  if (signal?.aborted) throw new Interrupted();
  // A FIFO opens without blocking (openForReading); the signal, not the process's signals, ends its read.
  // highWaterMark: a bound below the default 64 KiB chunk should not read a whole chunk past it.
  const stream = await openForReading(absolutePath, {
    highWaterMark: Math.min(64 * 1024, limit + 1),
    stopOnSignals: false,
  });
  const onAbort = () => stream.destroy();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await readStreamBounded(stream, limit);
  } catch (e) {
    if (signal?.aborted) throw new Interrupted();
    throw e;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stream.destroy();
  }
}
