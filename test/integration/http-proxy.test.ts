import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NetworkError, UsageError } from '../../src/contract/errors.js';
import { createHttpClient } from '../../src/http/client.js';
import { proxyFor, proxyFromEnv } from '../../src/http/undici/dispatcher.js';
import type { HttpClientOptions } from '../../src/contract/http.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'textgen-proxy-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { cwd: dir, stdio: 'pipe' },
  );
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

interface Listening {
  close(): Promise<void>;
  closeAllConnections(): void;
  listen(port: number, host: string, cb: () => void): unknown;
  address(): unknown;
}

async function listen(server: Listening, sockets: Socket[] = []): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    for (const socket of sockets) socket.destroy();
    server.closeAllConnections();
    await server.close();
  });
  return (server.address() as AddressInfo).port;
}

function closable<T extends { close(cb: () => void): unknown }>(server: T): T & { close(): Promise<void> } {
  const original = server.close.bind(server);
  return Object.assign(server, {
    close: () => new Promise<void>((resolve) => original(() => resolve())),
  }) as T & { close(): Promise<void> };
}

async function target(): Promise<string> {
  const server = closable(
    createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url }));
    }),
  );
  return `http://127.0.0.1:${await listen(server)}`;
}

async function secureTarget(): Promise<string> {
  const server = closable(
    createHttpsServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (_req, res) => {
        res.end('{"secure":true}');
      },
    ),
  );
  return `https://127.0.0.1:${await listen(server)}`;
}

/** A CONNECT proxy that records every tunnel it opens and then just relays bytes. */
async function proxy(): Promise<{ url: string; tunnels: { target: string; headers: IncomingHttpHeaders }[] }> {
  const tunnels: { target: string; headers: IncomingHttpHeaders }[] = [];
  const sockets: Socket[] = [];
  const server = closable(createServer((_req, res) => res.writeHead(405).end()));
  server.on('connect', (req, client: Socket, head: Buffer) => {
    tunnels.push({ target: req.url ?? '', headers: req.headers });
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.push(client, upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return { url: `http://127.0.0.1:${await listen(server, sockets)}`, tunnels };
}

function client(options: HttpClientOptions) {
  const c = createHttpClient({ retries: 0, ...options });
  closers.push(() => c.close());
  return c;
}

describe('proxies from the given env', () => {
  it('HTTP_PROXY carries an http request through the proxy', async () => {
    const [url, p] = await Promise.all([target(), proxy()]);
    const res = await client({ env: { HTTP_PROXY: p.url } }).send({
      method: 'GET',
      url: `${url}/v2/health/ready`,
      headers: {},
    });
    expect(await res.json()).toEqual({ path: '/v2/health/ready' });
    expect(p.tunnels.map((t) => t.target)).toEqual([new URL(url).host]);
  });

  it('lower-case https_proxy tunnels an https request, with the CA still verified end to end', async () => {
    const [url, p] = await Promise.all([secureTarget(), proxy()]);
    const res = await client({ env: { https_proxy: p.url }, caCertPath: join(dir, 'cert.pem') }).send({
      method: 'GET',
      url,
      headers: {},
    });
    expect(await res.json()).toEqual({ secure: true });
    expect(p.tunnels).toHaveLength(1);
  });

  it('an untrusted certificate behind the proxy is still a TLS error', async () => {
    const [url, p] = await Promise.all([secureTarget(), proxy()]);
    const send = client({ env: { HTTPS_PROXY: p.url } }).send(
      { method: 'GET', url, headers: {} },
      { service: 'watsonx' },
    );
    await expect(send).rejects.toMatchObject({ exitCode: 5, hint: 'use --ca-cert FILE or --insecure' });
  });

  it('credentials in the proxy URL are sent as Proxy-Authorization', async () => {
    const [url, p] = await Promise.all([target(), proxy()]);
    const proxyUrl = p.url.replace('http://', 'http://alice:s%40cret@');
    await (await client({ env: { HTTP_PROXY: proxyUrl } }).send({ method: 'GET', url, headers: {} })).text();
    expect(p.tunnels[0]?.headers['proxy-authorization']).toBe(
      `Basic ${Buffer.from('alice:s@cret').toString('base64')}`,
    );
  });

  it('NO_PROXY keeps matching hosts off the proxy', async () => {
    const [url, p] = await Promise.all([target(), proxy()]);
    const res = await client({ env: { HTTP_PROXY: p.url, NO_PROXY: 'example.com,127.0.0.1' } }).send({
      method: 'GET',
      url,
      headers: {},
    });
    expect(res.status).toBe(200);
    expect(p.tunnels).toEqual([]);
  });

  it('process.env is never read: only the env handed to the client counts', async () => {
    const [url, p] = await Promise.all([target(), proxy()]);
    const saved = process.env.HTTP_PROXY;
    process.env.HTTP_PROXY = p.url;
    try {
      // HTTPS_PROXY alone must not make an http request fall back to process.env.HTTP_PROXY.
      for (const env of [undefined, {}, { HTTPS_PROXY: 'http://127.0.0.1:9' }]) {
        const res = await client({ env }).send({ method: 'GET', url, headers: {} });
        expect(res.status).toBe(200);
        await res.text();
      }
    } finally {
      if (saved === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved;
    }
    expect(p.tunnels).toEqual([]);
  });

  it('a proxy that refuses connections is a NetworkError that names the proxy', async () => {
    const url = await target();
    const dead = closable(createServer());
    const port = await listen(dead);
    await dead.close();
    const send = client({ env: { HTTP_PROXY: `http://127.0.0.1:${port}` } }).send(
      { method: 'GET', url, headers: {} },
      { service: 'watsonx' },
    );
    await expect(send).rejects.toThrow(NetworkError);
    await expect(send).rejects.toThrow(
      `cannot connect to watsonx at ${url} via proxy 127.0.0.1:${port}: connection refused`,
    );
  });

  it('a proxy that rejects the tunnel is a NetworkError with its status', async () => {
    const url = await target();
    const grumpy = closable(createServer());
    grumpy.on('connect', (_req, socket: Socket) => socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n'));
    const port = await listen(grumpy);
    const send = client({ env: { HTTP_PROXY: `http://127.0.0.1:${port}` } }).send(
      { method: 'GET', url, headers: {} },
      { service: 'watsonx' },
    );
    await expect(send).rejects.toThrow(
      `cannot connect to watsonx at ${url} via proxy 127.0.0.1:${port}: the proxy answered HTTP 403`,
    );
  });
});

describe('proxyFromEnv', () => {
  it.each<[string, Record<string, string | undefined>, ReturnType<typeof proxyFromEnv>]>([
    ['nothing set', {}, undefined],
    ['empty values are unset', { HTTP_PROXY: '', HTTPS_PROXY: ' ' }, undefined],
    ['only NO_PROXY', { NO_PROXY: 'localhost' }, undefined],
    [
      'HTTP_PROXY serves https too',
      { HTTP_PROXY: 'http://p:3128' },
      { httpProxy: 'http://p:3128', httpsProxy: 'http://p:3128', noProxy: '' },
    ],
    [
      'HTTPS_PROXY alone leaves http direct',
      { HTTPS_PROXY: 'http://p:3128' },
      { httpProxy: '', httpsProxy: 'http://p:3128', noProxy: '' },
    ],
    [
      'lower case wins',
      { https_proxy: 'http://low:1', HTTPS_PROXY: 'http://up:2', no_proxy: 'a', NO_PROXY: 'b' },
      { httpProxy: '', httpsProxy: 'http://low:1', noProxy: 'a' },
    ],
    [
      'a value without scheme means http',
      { HTTPS_PROXY: 'proxy.corp:3128' },
      { httpProxy: '', httpsProxy: 'http://proxy.corp:3128', noProxy: '' },
    ],
  ])('%s', (_name, env, expected) => {
    expect(proxyFromEnv(env)).toEqual(expected);
  });

  it('an invalid proxy URL is a usage error that does not repeat the value', () => {
    let thrown: unknown;
    try {
      proxyFromEnv({ HTTPS_PROXY: 'http://user:pw@[bad' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toBe('HTTPS_PROXY is not a valid proxy URL');
  });
});

describe('proxyFor', () => {
  const settings = {
    httpProxy: 'http://u:p@proxy:3128',
    httpsProxy: 'http://sproxy:8443',
    noProxy: 'localhost, .internal.corp,api.example:8443',
  };
  it.each([
    ['http://example.com/', 'proxy:3128'],
    ['https://example.com/', 'sproxy:8443'],
    ['http://localhost:8000/', undefined],
    ['https://svc.internal.corp/', undefined],
    ['https://internal.corp/', undefined],
    ['https://api.example:8443/', undefined],
    ['https://api.example/', 'sproxy:8443'],
  ])('%s goes via %s', (url, expected) => {
    expect(proxyFor(settings, new URL(url))).toBe(expected);
  });
  it('NO_PROXY=* turns the proxy off', () => {
    expect(proxyFor({ ...settings, noProxy: '*' }, new URL('https://example.com/'))).toBeUndefined();
  });
});
