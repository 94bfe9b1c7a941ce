/**
 * One answer written to stdout's file descriptor, not through `process.stdout`: Node builds that stream on first use
 * (over a pipe a net.Socket, which loads node:net and the stream modules), and for a help page that cost more than
 * the rest of the answer (docs/performance.md, "Start-up, fifth round"), as bin/textgen.js found for --version.
 * Whatever the descriptor does not take at once — a non-blocking pipe that is full (EAGAIN), a reader gone (EPIPE), a
 * full disk — goes to `process.stdout` from where the write stopped, which then does what it always did with it
 * (waits for the reader; with the caller's 'error' listener, ends quietly), so bytes and exit codes stay the same.
 */
import { writeSync } from 'node:fs';

export interface WriteOutOptions {
  /** fs.writeSync's shape (bytes taken, or throws), for the tests. */
  write?: (fd: number, buffer: Uint8Array, offset: number) => number;
  /** The stream that takes over, with the caller's error handling: `process.stdout`. */
  stream: () => NodeJS.WritableStream;
}

/** Writes `bytes` to fd 1; true if the descriptor took them all, false if the stream took over the rest. */
export function writeOut(bytes: Uint8Array, options: WriteOutOptions): boolean {
  const write = options.write ?? ((fd, buffer, offset) => writeSync(fd, buffer, offset));
  let offset = 0;
  try {
    // A write may take part of the bytes (a pipe's capacity, a signal): the rest follows.
    while (offset < bytes.length) offset += write(1, bytes, offset);
    return true;
  } catch {
    options.stream().write(bytes.subarray(offset));
    return false;
  }
}
