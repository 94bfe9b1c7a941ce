import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach } from 'vitest';

export interface TinyServer {
  url: string;
  /** Method and path with query of every request, in order. */
  seen: string[];
}

/**
 * Scripted HTTP servers for the cases the embedded server does not act out (a 503 readiness, paging loops,
 * foreign next links, malformed lists). Listen on 127.0.0.1 port 0; closed after each test of the calling file.
 */
export function useTinyServers(): (
  handler: (req: IncomingMessage, res: ServerResponse, url: string) => void,
) => Promise<TinyServer> {
  const open: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      open.splice(0).map(
        (s) =>
          new Promise<void>((done) => {
            s.closeAllConnections();
            s.close(() => done());
          }),
      ),
    );
  });
  return async (handler) => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      // The body is not needed; reading it lets keep-alive connections go on.
      req.resume();
      req.on('end', () => handler(req, res, `http://${req.headers.host}`));
    });
    open.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    return { url: `http://127.0.0.1:${address.port}`, seen };
  };
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}
