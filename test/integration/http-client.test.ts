import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Interrupted, NetworkError, isTextgenError } from '../../src/contract/errors.js';
import { createHttpClient, type TransportChoice } from '../../src/http/client.js';
import { sleep } from '../../src/http/retry.js';
import type { HttpClient, HttpClientOptions, HttpResponse } from '../../src/contract/http.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: Server[] = [];
/** Every test below runs over both transports: node:http (direct requests) and undici (what proxies use). */
let transport: TransportChoice = 'auto';
const clients: HttpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

/** A loopback server; `handlers[i]` answers the i-th request (the last one repeats). */
async function serve(...handlers: Handler[]): Promise<{ url: string; requests: Recorded[]; seen: Promise<void> }> {
  const requests: Recorded[] = [];
  let markSeen!: () => void;
  const seen = new Promise<void>((resolve) => (markSeen = resolve));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const handler = handlers[Math.min(requests.length - 1, handlers.length - 1)];
      handler?.(req, res, body);
      markSeen();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, seen };
}

function reply(status: number, body = '', headers: Record<string, string | string[]> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };
}

interface Harness {
  client: HttpClient;
  sleeps: number[];
  trace: string[];
}

/** A client whose backoff is recorded instead of waited for. */
function harness(options: HttpClientOptions = {}): Harness {
  const sleeps: number[] = [];
  const trace: string[] = [];
  const client = createHttpClient({
    transport,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    trace: (line) => trace.push(line),
    ...options,
  });
  clients.push(client);
  return { client, sleeps, trace };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

async function drain(response: HttpResponse): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of response.body) chunks.push(Buffer.from(chunk).toString('utf8'));
  return chunks;
}

describe.each(['auto', 'undici', 'lean'] as const)('transport %s', (choice) => {
  beforeEach(() => {
    transport = choice;
  });

  describe('createHttpClient: answers', () => {
    it('sends method, headers and body and returns status, lower-cased headers and the body', async () => {
      const server = await serve(reply(200, '{"ok":true}', { 'X-Multi': ['a', 'b'], 'X-Request-Id': 'r1' }));
      const { client } = harness();
      const res = await client.send({
        method: 'POST',
        url: `${server.url}/ml/v1/text/generation?version=2024-05-01`,
        headers: { 'content-type': 'application/json', authorization: 'Bearer tok' },
        body: '{"input":"Hi"}',
      });
      expect(res.status).toBe(200);
      expect(res.headers['x-multi']).toBe('a, b');
      expect(res.headers['x-request-id']).toBe('r1');
      expect(await res.json()).toEqual({ ok: true });
      expect(server.requests).toEqual([
        expect.objectContaining({
          method: 'POST',
          url: '/ml/v1/text/generation?version=2024-05-01',
          body: '{"input":"Hi"}',
          headers: expect.objectContaining({ 'content-type': 'application/json', authorization: 'Bearer tok' }),
        }),
      ]);
    });

    it('decodes UTF-8 split across chunks in text()', async () => {
      const bytes = Buffer.from('héllo 日本 🎉', 'utf8');
      const server = await serve((_req, res) => {
        res.writeHead(200);
        // Split inside the multi-byte characters.
        res.write(bytes.subarray(0, 2));
        res.write(bytes.subarray(2, 9));
        res.end(bytes.subarray(9));
      });
      const { client } = harness();
      const res = await client.send({ method: 'GET', url: server.url, headers: {} });
      expect(await res.text()).toBe('héllo 日本 🎉');
    });

    it('streams the body chunk by chunk as it arrives', async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        void released.then(() => res.end('data: two\n\n'));
      });
      const { client } = harness();
      const res = await client.send({ method: 'GET', url: server.url, headers: {} });
      const chunks: string[] = [];
      for await (const chunk of res.body) {
        chunks.push(Buffer.from(chunk).toString('utf8'));
        // The second chunk is only sent once the first has reached us.
        if (chunks.length === 1) release();
      }
      expect(chunks.join('')).toBe('data: one\n\ndata: two\n\n');
    });

    it('json() on a non-JSON body throws a plain Error with a short excerpt', async () => {
      const server = await serve(reply(502, '<html><body>Bad gateway from the balancer</body></html>'));
      const { client } = harness({ retries: 0 });
      const res = await client.send({ method: 'GET', url: server.url, headers: {} }, { service: 'watsonx' });
      const err = await failure(res.json());
      expect(err).toBeInstanceOf(Error);
      expect(isTextgenError(err)).toBe(false);
      expect((err as Error).message).toMatch(
        /^watsonx at http:\/\/127\.0\.0\.1:\d+ answered HTTP 502 with ".*Bad gateway/,
      );
    });

    /** Counts the connections the last server made by serve() accepted. */
    function connectionsOfLastServer(): () => number {
      let count = 0;
      servers[servers.length - 1]?.on('connection', () => count++);
      return () => count;
    }

    /** Reads a stream's first chunk, then stops (released or not) as a reader does at the end marker. */
    async function firstChunkThenStop(res: HttpResponse, release: boolean): Promise<string> {
      for await (const chunk of res.body) {
        if (release) res.release?.();
        return Buffer.from(chunk).toString('utf8');
      }
      return '';
    }

    it('a stream released at its end marker keeps its connection for the next request', async () => {
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: [DONE]\n\n');
        // The body's own end comes a little after the marker, as from a server that flushes them apart.
        setTimeout(() => res.end(), 30);
      });
      const connections = connectionsOfLastServer();
      const { client } = harness();
      for (let i = 0; i < 3; i++) {
        const res = await client.send({ method: 'GET', url: server.url, headers: {} });
        expect(await firstChunkThenStop(res, true)).toBe('data: [DONE]\n\n');
        await sleep(60);
      }
      expect(connections()).toBe(1);
    });

    it('a stream that stops being read without release, or goes on past its end marker, loses its connection', async () => {
      const server = await serve(
        (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: one\n\n');
          setTimeout(() => res.end('data: two\n\n'), 30);
        },
        (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: [DONE]\n\n');
          // More than release() reads after the marker: the connection is cut rather than drained.
          const junk = Buffer.alloc(16 * 1024, 'x');
          let sent = 0;
          const more = setInterval(() => {
            if (res.destroyed || sent++ > 16) {
              clearInterval(more);
              if (!res.destroyed) res.end();
              return;
            }
            res.write(junk);
          }, 5);
        },
      );
      const connections = connectionsOfLastServer();
      const { client } = harness();
      const first = await client.send({ method: 'GET', url: server.url, headers: {} });
      expect(await firstChunkThenStop(first, false)).toBe('data: one\n\n');
      await sleep(60);
      const second = await client.send({ method: 'GET', url: server.url, headers: {} });
      expect(await firstChunkThenStop(second, true)).toBe('data: [DONE]\n\n');
      await sleep(200);
      await (await client.send({ method: 'GET', url: server.url, headers: {} })).text().catch(() => '');
      // Each of the three requests on a connection of its own (undici may open more than that, never fewer).
      expect(connections()).toBeGreaterThanOrEqual(3);
    });

    it("an event stream's body can be read only once", async () => {
      const server = await serve(reply(200, 'x', { 'content-type': 'text/event-stream' }));
      const { client } = harness();
      const res = await client.send({ method: 'GET', url: server.url, headers: {} });
      await res.text();
      await expect(res.text()).rejects.toThrow(/only once/);
    });

    it('an invalid URL is a usage error', async () => {
      const { client } = harness();
      const err = await failure(client.send({ method: 'GET', url: 'not a url', headers: {} }, { service: 'watsonx' }));
      expect(err).toMatchObject({ exitCode: 2, message: 'invalid URL for watsonx: not a url' });
    });
  });

  describe('createHttpClient: retries', () => {
    it('waits as Retry-After says after a 429 and then returns the 200', async () => {
      const server = await serve(reply(429, '{}', { 'retry-after': '2' }), reply(200, '{"n":2}'));
      const { client, sleeps } = harness();
      const res = await client.send({ method: 'POST', url: server.url, headers: {}, body: '{}' });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ n: 2 });
      expect(sleeps).toEqual([2000]);
      expect(server.requests).toHaveLength(2);
    });

    it('prefers retry-after-ms', async () => {
      const server = await serve(reply(503, '', { 'retry-after-ms': '150', 'retry-after': '9' }), reply(200));
      const { client, sleeps } = harness();
      expect((await client.send({ method: 'GET', url: server.url, headers: {} })).status).toBe(200);
      expect(sleeps).toEqual([150]);
    });

    it('returns the final 503 after 3 attempts with retries 2, backing off exponentially', async () => {
      const server = await serve(reply(503, '{"errors":[{"code":"busy"}]}'));
      const { client, sleeps } = harness({ retries: 2 });
      const res = await client.send({ method: 'GET', url: server.url, headers: {} });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ errors: [{ code: 'busy' }] });
      expect(server.requests).toHaveLength(3);
      expect(sleeps).toEqual([500, 1000]);
    });

    it.each([408, 429, 500, 502, 503, 504])('retries HTTP %i', async (status) => {
      const server = await serve(reply(status), reply(200));
      const { client } = harness();
      expect((await client.send({ method: 'GET', url: server.url, headers: {} })).status).toBe(200);
      expect(server.requests).toHaveLength(2);
    });

    it.each([400, 401, 403, 404, 422, 501])('does not retry HTTP %i', async (status) => {
      const server = await serve(reply(status, '{"error":"no"}'), reply(200));
      const { client, sleeps } = harness();
      const res = await client.send({ method: 'GET', url: server.url, headers: {} });
      expect(res.status).toBe(status);
      expect(server.requests).toHaveLength(1);
      expect(sleeps).toEqual([]);
    });

    it('per-call retries override the client default', async () => {
      const server = await serve(reply(503));
      const { client } = harness({ retries: 5 });
      const res = await client.send({ method: 'GET', url: server.url, headers: {} }, { retries: 0 });
      expect(res.status).toBe(503);
      expect(server.requests).toHaveLength(1);
    });

    it('retries a connection reset before the answer and then succeeds', async () => {
      const server = await serve((req) => req.socket.destroy(), reply(200, '{"ok":1}'));
      const { client, sleeps } = harness();
      const res = await client.send({ method: 'POST', url: server.url, headers: {}, body: '{}' });
      expect(await res.json()).toEqual({ ok: 1 });
      expect(server.requests).toHaveLength(2);
      expect(sleeps).toEqual([500]);
    });

    it('honours Retry-After: 1 with the real sleep', async () => {
      const server = await serve(reply(429, '', { 'retry-after': '1' }), reply(200));
      const client = createHttpClient({ transport });
      clients.push(client);
      const started = performance.now();
      const res = await client.send({ method: 'GET', url: server.url, headers: {} });
      expect(res.status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    });
  });

  describe('createHttpClient: failures', () => {
    async function closedPort(): Promise<string> {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return `http://127.0.0.1:${port}`;
    }

    it('connection refused is a NetworkError naming the service and origin, after the retries', async () => {
      const url = await closedPort();
      const { client, sleeps, trace } = harness({ retries: 2 });
      const err = await failure(
        client.send({ method: 'POST', url: `${url}/ml/v1/x?version=1`, headers: {} }, { service: 'watsonx' }),
      );
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).exitCode).toBe(5);
      expect((err as NetworkError).message).toBe(`cannot connect to watsonx at ${url}: connection refused`);
      expect(sleeps).toEqual([500, 1000]);
      expect(trace).toContain('retrying in 0.5 s (connection refused, attempt 2 of 3)');
      expect(trace).toContain('retrying in 1.0 s (connection refused, attempt 3 of 3)');
    });

    it('no response headers within the timeout is a NetworkError naming --timeout', async () => {
      const server = await serve(() => {
        // Never answers.
      });
      const { client } = harness({ timeoutMs: 200 });
      const err = await failure(client.send({ method: 'GET', url: server.url, headers: {} }, { service: 'watsonx' }));
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as Error).message).toBe(`no response from watsonx at ${server.url} within 0.2 s (--timeout)`);
      // A timeout is not a connection failure: no second attempt.
      expect(server.requests).toHaveLength(1);
    });

    it('a body that goes silent throws a NetworkError from body iteration', async () => {
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: partial\n\n');
      });
      const { client } = harness({ timeoutMs: 200 });
      const res = await client.send({ method: 'GET', url: server.url, headers: {} }, { service: 'aleph-alpha' });
      const chunks: string[] = [];
      const err = await failure(
        (async () => {
          for await (const chunk of res.body) chunks.push(Buffer.from(chunk).toString('utf8'));
        })(),
      );
      expect(chunks.join('')).toBe('data: partial\n\n');
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as Error).message).toBe(
        `aleph-alpha at ${server.url} sent nothing for 0.2 s in the middle of its answer (--timeout)`,
      );
    });

    it('an event stream dropped mid-body throws a NetworkError from body iteration', async () => {
      const server = await serve((req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': '1000' });
        res.write('some', () => req.socket.destroy());
      });
      const { client } = harness();
      const res = await client.send({ method: 'GET', url: server.url, headers: {} }, { service: 'watsonx' });
      const err = await failure(drain(res));
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as Error).message).toBe(
        `connection to watsonx at ${server.url} broke off in the middle of its answer`,
      );
    });

    it('an abort while waiting for the answer throws Interrupted', async () => {
      const server = await serve(() => {
        // Never answers.
      });
      const { client } = harness();
      const controller = new AbortController();
      const pending = client.send({ method: 'GET', url: server.url, headers: {} }, { signal: controller.signal });
      await server.seen;
      controller.abort();
      const err = await failure(pending);
      expect(err).toBeInstanceOf(Interrupted);
      expect((err as Interrupted).exitCode).toBe(130);
    });

    it('an abort while iterating an event stream throws Interrupted', async () => {
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('first');
      });
      const { client } = harness();
      const controller = new AbortController();
      const res = await client.send({ method: 'GET', url: server.url, headers: {} }, { signal: controller.signal });
      const err = await failure(
        (async () => {
          for await (const _chunk of res.body) controller.abort();
        })(),
      );
      expect(err).toBeInstanceOf(Interrupted);
    });

    it('an abort during the backoff wait throws Interrupted without another attempt', async () => {
      const server = await serve(reply(429, '', { 'retry-after': '30' }), reply(200));
      const controller = new AbortController();
      // The real sleep, watched: how its 30 s wait ended tells whether the abort cut it short.
      const waits: Array<{ ms: number; ended?: 'elapsed' | 'aborted' }> = [];
      const client = createHttpClient({
        transport,
        sleep: async (ms, signal) => {
          const wait: { ms: number; ended?: 'elapsed' | 'aborted' } = { ms };
          waits.push(wait);
          try {
            await sleep(ms, signal);
            wait.ended = 'elapsed';
          } catch (e) {
            wait.ended = 'aborted';
            throw e;
          }
        },
        trace: (line) => {
          if (line.startsWith('retrying')) controller.abort();
        },
      });
      clients.push(client);
      const err = await failure(
        client.send({ method: 'GET', url: server.url, headers: {} }, { signal: controller.signal }),
      );
      expect(err).toBeInstanceOf(Interrupted);
      expect(waits).toEqual([{ ms: 30_000, ended: 'aborted' }]);
      expect(server.requests).toHaveLength(1);
    });

    it('an already aborted signal sends nothing', async () => {
      const server = await serve(reply(200));
      const { client } = harness();
      const err = await failure(
        client.send({ method: 'GET', url: server.url, headers: {} }, { signal: AbortSignal.abort() }),
      );
      expect(err).toBeInstanceOf(Interrupted);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('createHttpClient: --verbose trace', () => {
    it('traces request, response and retries without any secret', async () => {
      const server = await serve(
        reply(429, '', { 'set-cookie': 'sid=cookie-secret-1' }),
        reply(200, '{}', { 'x-request-id': 'abc' }),
      );
      const secrets = ['sk-live-12345', 'iam-apikey-67890'];
      const { client, trace } = harness({ secrets });
      await client.send(
        {
          method: 'POST',
          url: `${server.url}/ml/v1/text/generation?version=2024-05-01`,
          headers: {
            'content-type': 'application/json',
            authorization: 'Bearer sk-live-12345',
            'x-echo': 'sk-live-12345',
          },
          body: '{"input":"my key is iam-apikey-67890","password":"hunter2!!"}',
        },
        { service: 'watsonx' },
      );
      expect(trace).toEqual(
        expect.arrayContaining([
          `> POST ${server.url}/ml/v1/text/generation?version=2024-05-01`,
          '> content-type: application/json',
          '> authorization: Bearer ***',
          '> x-echo: ***',
          '> {"input":"my key is ***","password":"***"}',
          'retrying in 0.5 s (HTTP 429, attempt 2 of 3)',
          '< set-cookie: ***',
          '< x-request-id: abc',
        ]),
      );
      expect(trace.some((line) => /^< 429 Too Many Requests \(\d+ ms\)$/.test(line))).toBe(true);
      expect(trace.some((line) => /^< 200 OK \(\d+ ms\)$/.test(line))).toBe(true);
      const all = trace.join('\n');
      for (const secret of [...secrets, 'hunter2!!', 'cookie-secret-1']) expect(all).not.toContain(secret);
    });

    it('shows form bodies with credential fields masked', async () => {
      const server = await serve(reply(200, '{"access_token":"t"}'));
      const { client, trace } = harness();
      await client.send({
        method: 'POST',
        url: `${server.url}/identity/token`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=urn%3Aibm%3Aparams%3Aoauth%3Agrant-type%3Aapikey&apikey=plain-key-not-in-secrets',
      });
      expect(trace).toContain('> grant_type=urn%3Aibm%3Aparams%3Aoauth%3Agrant-type%3Aapikey&apikey=***');
      expect(trace.join('\n')).not.toContain('plain-key-not-in-secrets');
    });
  });
});

describe('client.ts start-up cost', () => {
  it('imports the transports (undici, node:http) only lazily', () => {
    const source = readFileSync(new URL('../../src/http/client.ts', import.meta.url), 'utf8');
    const eager = source
      .split('\n')
      .filter((line) =>
        /^import\s(?!type\s).*from\s+'(undici|node:https?|\.\/(undici\/|)(undici-parts|dispatcher|undici-transport|node-transport|response|trace)\.js)'/.test(
          line,
        ),
      );
    expect(eager).toEqual([]);
    expect(source).toContain("import('./undici/undici-transport.js')");
    expect(source).toContain("import('./node-transport.js')");
  });
});
