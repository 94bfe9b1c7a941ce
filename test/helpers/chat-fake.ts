/**
 * Scripted chat servers for what the embedded server does not act out (tool calls as each service words them,
 * streamed tool-call deltas split across events, answers that break a schema): each request is recorded with its
 * body, and answered by the next reply of the script. Listen on 127.0.0.1 port 0; closed after each test.
 */
import { createServer, type Server } from 'node:http';
import { afterEach } from 'vitest';

export interface FakeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/** A JSON answer, or an event stream: each event's `data` (objects are JSON-encoded), written one by one. */
export type FakeReply = { status?: number; json: unknown } | { sse: Array<unknown>; done?: boolean; event?: string };

export interface FakeChatServer {
  url: string;
  requests: FakeRequest[];
}

export function useChatFakes(): (
  script: FakeReply[] | ((req: FakeRequest, n: number) => FakeReply),
) => Promise<FakeChatServer> {
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
  return async (script) => {
    const requests: FakeRequest[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = text;
        }
        const recorded: FakeRequest = {
          method: req.method ?? '',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          json,
        };
        requests.push(recorded);
        const n = requests.length - 1;
        const reply = typeof script === 'function' ? script(recorded, n) : script[Math.min(n, script.length - 1)];
        if (reply === undefined) {
          res.writeHead(500).end();
          return;
        }
        if ('json' in reply) {
          const body = JSON.stringify(reply.json);
          res.writeHead(reply.status ?? 200, {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          });
          res.end(body);
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const [i, data] of reply.sse.entries()) {
          const line = typeof data === 'string' ? data : JSON.stringify(data);
          res.write(`${reply.event ? `id: ${i + 1}\nevent: ${reply.event}\n` : ''}data: ${line}\n\n`);
        }
        if (reply.done !== false) res.write('data: [DONE]\n\n');
        res.end();
      });
    });
    open.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    return { url: `http://127.0.0.1:${address.port}`, requests };
  };
}
