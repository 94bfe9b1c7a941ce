/** Writing answers: JSON bodies and waits that end when the client or the server gives up. */
import type { ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
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
export async function write(res: ServerResponse, chunk: string, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted || res.destroyed) return false;
  if (res.write(chunk)) return true;
  await Promise.race([new Promise((resolve) => res.once('drain', resolve)), untilAborted(signal)]);
  return !signal.aborted && !res.destroyed;
}
