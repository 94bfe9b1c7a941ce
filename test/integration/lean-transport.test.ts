import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/contract/errors.js';
import { createHttpClient } from '../../src/http/client.js';
import type { HttpClient } from '../../src/contract/http.js';

/**
 * The lean transport (src/http/lean-transport.ts) against raw TCP servers that write answers byte for byte as a
 * test wants them: split anywhere, chunked, closed between requests, malformed. Requests go through the client
 * with `lean: true`, as a batch line's do.
 */

const servers: Server[] = [];
const clients: HttpClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

interface Raw {
  url: string;
  /** Connections accepted so far. */
  connections: () => number;
  /** Requests read so far (each request's head and body as text). */
  requests: string[];
}

/**
 * A server that calls `answer(socket, n)` for the n-th request (0-based, over every connection) once its head and
 * content-length body are in.
 */
async function raw(answer: (socket: Socket, n: number, request: string) => void): Promise<Raw> {
  let connections = 0;
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const request = buffered.slice(0, end + 4 + length);
        buffered = buffered.slice(end + 4 + length);
        requests.push(request);
        answer(socket, requests.length - 1, request);
      }
    });
  });
  const close = server.close.bind(server);
  server.close = ((cb?: (err?: Error) => void) => {
    for (const s of sockets) s.destroy();
    return close(cb);
  }) as typeof server.close;
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`,
    connections: () => connections,
    requests,
  };
}

function client(timeoutMs = 5000): HttpClient {
  const c = createHttpClient({ timeoutMs, retries: 0 });
  clients.push(c);
  return c;
}

const post = (c: HttpClient, url: string, body = '{"a":1}') =>
  c.send(
    { method: 'POST', url, headers: { 'content-type': 'application/json', 'api-key': 'k' }, body },
    { lean: true, service: 'svc', retries: 0 },
  );

const ok = (body: string, extra = '') =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

/** Writes `text` a few bytes at a time, each piece in its own TCP write. */
async function trickle(socket: Socket, text: string, size: number): Promise<void> {
  for (let i = 0; i < text.length; i += size) {
    socket.write(text.slice(i, i + size));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

describe('the lean transport', () => {
  it('sends one request with its headers, the host and the body length, and reads the answer', async () => {
    const s = await raw((socket) => socket.write(ok('{"b":2}')));
    const res = await post(client(), s.url, '{"é":1}');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(await res.json()).toEqual({ b: 2 });
    const [head, body] = (s.requests[0] as string).split('\r\n\r\n');
    const lines = (head as string).split('\r\n');
    expect(lines[0]).toBe('POST /v1/x HTTP/1.1');
    expect(lines).toEqual(
      expect.arrayContaining([
        'content-type: application/json',
        'api-key: k',
        expect.stringMatching(/^user-agent: textgen\//),
        'accept-encoding: gzip, deflate, br',
        `host: ${new URL(s.url).host}`,
        'connection: keep-alive',
        `content-length: ${Buffer.byteLength('{"é":1}')}`,
      ]),
    );
    expect(Buffer.from(body as string, 'latin1').toString('utf8')).toBe('{"é":1}');
  });

  it('reuses one keep-alive connection for requests one after another', async () => {
    const s = await raw((socket, n) => socket.write(ok(`{"n":${n}}`)));
    const c = client();
    for (let i = 0; i < 5; i++) expect(await (await post(c, s.url)).json()).toEqual({ n: i });
    expect(s.connections()).toBe(1);
  });

  it('opens no more connections than requests in flight', async () => {
    const s = await raw((socket, n) => setTimeout(() => socket.write(ok(`{"n":${n}}`)), 5));
    const c = client();
    for (let round = 0; round < 3; round++) await Promise.all(Array.from({ length: 4 }, () => post(c, s.url)));
    expect(s.connections()).toBe(4);
  });

  it('reads headers and body split into tiny writes, and a chunked body', async () => {
    const chunked =
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n4\r\n{"a"\r\n3\r\n:1}\r\n0\r\n\r\n';
    const s = await raw((socket, n) => void trickle(socket, n === 0 ? ok('{"split":true}') : chunked, 3));
    const c = client();
    expect(await (await post(c, s.url)).json()).toEqual({ split: true });
    expect(await (await post(c, s.url)).json()).toEqual({ a: 1 });
    expect(s.connections()).toBe(1);
  });

  it('a server that closes the idle connection between requests: the next request goes on a new one', async () => {
    const s = await raw((socket) => {
      socket.write(ok('{"ok":1}'));
      setTimeout(() => socket.destroy(), 10);
    });
    const c = client();
    expect(await (await post(c, s.url)).json()).toEqual({ ok: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await (await post(c, s.url)).json()).toEqual({ ok: 1 });
    expect(s.connections()).toBe(2);
  });

  it('a reused connection that the server closes on the next request is tried once more on a new one', async () => {
    const s = await raw((socket, n) => {
      // The second request arrives on the kept connection and the server hangs up instead of answering.
      if (n === 1) socket.destroy();
      else socket.write(ok(`{"n":${n}}`));
    });
    const c = client();
    expect(await (await post(c, s.url)).json()).toEqual({ n: 0 });
    expect(await (await post(c, s.url)).json()).toEqual({ n: 2 });
    expect(s.connections()).toBe(2);
  });

  it('Connection: close and an answer framed by the end of the connection are not reused', async () => {
    const s = await raw((socket, n) => {
      if (n === 0) socket.write(ok('{"n":0}', 'connection: close\r\n'));
      else socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"n":1}');
    });
    const c = client();
    expect(await (await post(c, s.url)).json()).toEqual({ n: 0 });
    expect(await (await post(c, s.url)).json()).toEqual({ n: 1 });
    expect(s.connections()).toBe(2);
  });

  it('a connection that carried bytes past the end of an answer is not reused', async () => {
    const s = await raw((socket, n) => socket.write(`${ok(`{"n":${n}}`)}garbage`));
    const c = client();
    expect(await (await post(c, s.url)).json()).toEqual({ n: 0 });
    expect(await (await post(c, s.url)).json()).toEqual({ n: 1 });
    expect(s.connections()).toBe(2);
  });

  it('a body of many reads comes whole, and its connection serves the next request', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(300_000) });
    const s = await raw((socket) => socket.write(ok(big)));
    const c = client();
    const res = await post(c, s.url);
    expect(((await res.json()) as { text: string }).text).toHaveLength(300_000);
    const streamed = await c.send(
      { method: 'POST', url: s.url, headers: { 'accept-encoding': 'identity' }, body: '{}' },
      { lean: true, service: 'svc', retries: 0 },
    );
    expect(await streamed.text()).toBe(big);
    expect(s.connections()).toBe(1);
  });

  it('skips a 100 Continue before the answer', async () => {
    const s = await raw((socket) => socket.write(`HTTP/1.1 100 Continue\r\n\r\n${ok('{"c":1}')}`));
    expect(await (await post(client(), s.url)).json()).toEqual({ c: 1 });
  });

  it('a malformed answer is a NetworkError that says it could not be parsed', async () => {
    const s = await raw((socket) => socket.end('this is not HTTP\r\n\r\n'));
    const err = await failure(post(client(), s.url));
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe(
      `cannot connect to svc at ${new URL(s.url).origin}: Parse Error: Expected HTTP/1.x status line`,
    );
  });

  it('a connection cut in the middle of the body is a NetworkError saying so', async () => {
    const s = await raw((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":');
      setTimeout(() => socket.destroy(), 10);
    });
    const err = await failure(post(client(), s.url));
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe(
      `connection to svc at ${new URL(s.url).origin} broke off in the middle of its answer`,
    );
  });

  it('no headers within the timeout, and a body gone silent, are the timeouts of node:http', async () => {
    const silent = await raw(() => undefined);
    const c = client(200);
    expect(((await failure(post(c, silent.url))) as Error).message).toBe(
      `no response from svc at ${new URL(silent.url).origin} within 0.2 s (--timeout)`,
    );
    const half = await raw((socket) =>
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":'),
    );
    expect(((await failure(post(c, half.url))) as Error).message).toBe(
      `svc at ${new URL(half.url).origin} sent nothing for 0.2 s in the middle of its answer (--timeout)`,
    );
  });

  it('an abort while waiting for the answer ends the exchange at once', async () => {
    const s = await raw(() => undefined);
    const controller = new AbortController();
    const pending = client().send(
      { method: 'POST', url: s.url, headers: {}, body: '{}' },
      { lean: true, service: 'svc', retries: 0, signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 20);
    const err = await failure(pending);
    expect((err as Error).name).toBe('Interrupted');
  });

  it('a header node:http would refuse goes through node:http, which refuses it in its words', async () => {
    const s = await raw((socket) => socket.write(ok('{}')));
    const err = await failure(
      client().send(
        { method: 'POST', url: s.url, headers: { 'x-key': 'a\nb' }, body: '{}' },
        { lean: true, service: 'svc', retries: 0 },
      ),
    );
    expect((err as Error).message).toBe('invalid request to svc: invalid x-key header');
    expect(s.requests).toHaveLength(0);
  });

  describe('an event stream, handed on as the socket brings it (listen)', () => {
    const sseHead = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n';
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const events = ['data: {"t":1}\n\n', 'data: {"t":2}\n\n', 'data: [DONE]\n\n'];

    /** What a pushing reader got: each chunk as text, then `<end>` or `<fail NAME: MESSAGE>`. */
    const pushedInto = (res: Awaited<ReturnType<HttpClient['send']>>) => {
      const got: string[] = [];
      let settle: () => void = () => undefined;
      const settled = new Promise<void>((resolve) => {
        settle = resolve;
      });
      const stop = res.push?.({
        chunk: (c) => got.push(Buffer.from(c).toString()),
        end: () => {
          got.push('<end>');
          settle();
        },
        fail: (e) => {
          got.push(`<fail ${(e as Error).name}: ${(e as Error).message}>`);
          settle();
        },
      });
      return { got, settled, stop };
    };

    it('every chunk in order, split anywhere, then the end; the connection serves the next request', async () => {
      const s = await raw((socket) => void trickle(socket, sseHead + events.map(chunk).join('') + '0\r\n\r\n', 7));
      const c = client();
      const first = pushedInto(await post(c, s.url));
      await first.settled;
      expect(first.got.at(-1)).toBe('<end>');
      expect(first.got.slice(0, -1).join('')).toBe(events.join(''));
      // The pull reader goes through the same path.
      const parts: string[] = [];
      for await (const part of (await post(c, s.url)).body) parts.push(Buffer.from(part).toString());
      expect(parts.join('')).toBe(events.join(''));
      expect(s.connections()).toBe(1);
    });

    it('a stream cut in the middle: what came, then a NetworkError saying the service closed it', async () => {
      const s = await raw((socket) => {
        socket.write(sseHead + chunk(events[0] as string));
        setTimeout(() => socket.destroy(), 20);
      });
      const r = pushedInto(await post(client(), s.url));
      await r.settled;
      expect(r.got[0]).toBe(events[0]);
      expect(r.got[1]).toMatch(/^<fail NetworkError: /);
    });

    it('a reader that stops before the end cuts the connection: the next request opens another', async () => {
      const s = await raw((socket, n) => {
        socket.write(sseHead + chunk(events[0] as string));
        if (n > 0) socket.end(`${chunk(events[2] as string)}0\r\n\r\n`);
      });
      const c = client();
      const r = pushedInto(await post(c, s.url));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(r.got).toEqual([events[0]]);
      r.stop?.();
      const next = pushedInto(await post(c, s.url));
      await next.settled;
      expect(next.got.at(-1)).toBe('<end>');
      expect(s.connections()).toBe(2);
    });
  });
});
