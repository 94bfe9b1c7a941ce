/**
 * A readable stream for a file named on the command line that a signal can always stop.
 *
 * A named pipe is a legitimate input (`--input-file <(make-prompt)`, `--parameters @<(jq …)`), but read like a
 * file it blocks a libuv thread: opening it waits for a writer and each read for data, in the thread pool, where
 * nothing can cancel them, and a process exits only once its pool threads return. Ctrl-C, SIGTERM and even the
 * second signal's `process.exit` then hung until someone wrote to the pipe. So a pipe is opened
 * with O_NONBLOCK, which returns at once, and read as a stream socket on the event loop, where it waits for data
 * without holding a thread; and while it is read, SIGINT, SIGTERM and SIGHUP end the read with Interrupted (the
 * command exits 130, 143 or 129 as for any other interruption). The option readers that get here do not carry the
 * command's abort signal (they are reached from every command's option parsing), hence the process signals.
 * Regular files and character devices are read as before: they do not block for long (`@/dev/zero` is cut by
 * the readers' byte limit). A reader that holds the command's abort signal (readFileBounded) ends the read itself
 * and asks for no process signals.
 */
import { constants, createReadStream, openSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Interrupted } from '../contract/errors.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface OpenOptions {
  /** The read size of a regular file (a bound below the default 64 KiB chunk need not read a whole chunk past it). */
  highWaterMark?: number;
  /** SIGINT, SIGTERM and SIGHUP end the read of a pipe with Interrupted (default true). */
  stopOnSignals?: boolean;
}

export async function openForReading(
  file: string,
  options: OpenOptions = {},
): Promise<NodeJS.ReadableStream & { destroy(error?: Error): void }> {
  const s = await stat(file);
  if (!s.isFIFO())
    return createReadStream(file, options.highWaterMark !== undefined ? { highWaterMark: options.highWaterMark } : {});
  // A raw descriptor (not a FileHandle, which would be closed when collected): the socket owns it from here on.
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  const { Socket } = await import('node:net');
  const socket = new Socket({ fd, readable: true, writable: false });
  if (options.stopOnSignals === false) return socket;
  const stop = () => socket.destroy(new Interrupted());
  for (const signal of SIGNALS) process.on(signal, stop);
  socket.once('close', () => {
    for (const signal of SIGNALS) process.off(signal, stop);
  });
  return socket;
}
