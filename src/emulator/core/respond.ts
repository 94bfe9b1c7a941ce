/** Writing answers: JSON bodies and waits that end when the client or the server gives up. */
import type { ServerResponse } from 'node:http';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** Resolves when the signal aborts. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Waits `ms`; returns false when aborted first. */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Writes a chunk, waiting for the socket to drain when it pushes back; false once the client is gone. */
export function write(
  res: ServerResponse,
  chunk: string | Uint8Array,
  signal: AbortSignal,
): boolean | Promise<boolean> {
  if (signal.aborted || res.destroyed) return false;
  // Not async: a stream writes once per token, and the common case (the socket took it) needs no promise.
  if (res.write(chunk)) return true;
  return drained(res, signal);
}

async function drained(res: ServerResponse, signal: AbortSignal): Promise<boolean> {
  // Both listeners go once either fires: a long stream waits for drain many times on the same signal.
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
  return !signal.aborted && !res.destroyed;
}

/** Resolves once everything written so far has been handed to the operating system. */
export function flushed(res: ServerResponse): Promise<void> {
  const socket = res.socket;
  if (!socket || socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => socket.write('', () => resolve()));
}
