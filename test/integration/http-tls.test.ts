import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NetworkError, UsageError } from '../../src/contract/errors.js';
import { createHttpClient, type TransportChoice } from '../../src/http/client.js';
import type { HttpClient, HttpClientOptions } from '../../src/contract/http.js';

let dir: string;
const file = (name: string): string => join(dir, name);

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'textgen-tls-'));
  // A self-signed certificate for 127.0.0.1, and one for another host name.
  openssl(
    'req',
    '-x509',
    ...EC,
    '-keyout',
    'self.key',
    '-out',
    'self.pem',
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
  );
  openssl(
    'req',
    '-x509',
    ...EC,
    '-keyout',
    'other.key',
    '-out',
    'other.pem',
    '-days',
    '1',
    '-subj',
    '/CN=other.example',
    '-addext',
    'subjectAltName=DNS:other.example',
  );
  // A private CA and a server certificate it signed, as on a Cloud Pak for Data cluster.
  openssl('req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=Textgen Test CA');
  openssl('req', ...EC, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(file('leaf.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'leaf.pem',
    '-days',
    '1',
    '-extfile',
    'leaf.ext',
  );
  writeFileSync(file('not-pem.txt'), 'hello\n');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const closers: (() => Promise<void>)[] = [];
/** Every test runs over both transports: node:https (direct requests) and undici (what proxies use). */
let transport: TransportChoice = 'auto';
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function client(options: HttpClientOptions = {}): HttpClient {
  const c = createHttpClient({ retries: 0, transport, ...options });
  closers.push(() => c.close());
  return c;
}

async function httpsServer(certName: string): Promise<string> {
  const server = createHttpsServer(
    { key: readFileSync(file(`${certName}.key`)), cert: readFileSync(file(`${certName}.pem`)) },
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"secure":true}');
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe.each(['auto', 'undici', 'lean'] as const)('TLS, transport %s', (choice) => {
  beforeEach(() => {
    transport = choice;
  });

  it('a self-signed certificate is a NetworkError with the --ca-cert/--insecure hint', async () => {
    const url = await httpsServer('self');
    const err = await failure(
      client().send({ method: 'GET', url: `${url}/ml/v1/x`, headers: {} }, { service: 'watsonx' }),
    );
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({
      message: `TLS verification failed for watsonx at ${url}: self-signed certificate`,
      hint: 'use --ca-cert FILE or --insecure',
    });
  });

  it('the self-signed server answers with insecure', async () => {
    const url = await httpsServer('self');
    const res = await client({ insecure: true }).send({ method: 'GET', url, headers: {} });
    expect(await res.json()).toEqual({ secure: true });
  });

  it('the self-signed server answers when its certificate is given as caCertPath', async () => {
    const url = await httpsServer('self');
    const res = await client({ caCertPath: file('self.pem') }).send({ method: 'GET', url, headers: {} });
    expect(res.status).toBe(200);
  });

  it('a certificate from an unknown private CA is a NetworkError with the hint', async () => {
    const url = await httpsServer('leaf');
    const err = await failure(client().send({ method: 'GET', url, headers: {} }, { service: 'watsonx' }));
    expect(err).toMatchObject({
      exitCode: 5,
      message: `TLS verification failed for watsonx at ${url}: certificate signed by an unknown CA`,
      hint: 'use --ca-cert FILE or --insecure',
    });
  });

  it('the private CA given as caCertPath is added to the default roots', async () => {
    const url = await httpsServer('leaf');
    const res = await client({ caCertPath: file('ca.pem') }).send({ method: 'GET', url, headers: {} });
    expect(res.status).toBe(200);
  });

  it('a certificate for another host name is a NetworkError even when its CA is trusted', async () => {
    const url = await httpsServer('other');
    const err = await failure(
      client({ caCertPath: file('other.pem') }).send({ method: 'GET', url, headers: {} }, { service: 'watsonx' }),
    );
    expect(err).toMatchObject({
      exitCode: 5,
      message: `TLS verification failed for watsonx at ${url}: certificate does not match the host name`,
      hint: 'use --ca-cert FILE or --insecure',
    });
  });

  it.each([
    ['a missing CA file', 'missing.pem', /^cannot read CA certificate file .*missing\.pem: no such file$/],
    ['a CA file without PEM', 'not-pem.txt', /^CA certificate file .*not-pem\.txt holds no PEM certificate$/],
  ])('%s is a usage error', async (_name, name, message) => {
    const err = await failure(
      client({ caCertPath: file(name) }).send({ method: 'GET', url: 'https://127.0.0.1:1/', headers: {} }),
    );
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
  });

  it('a TLS handshake that never completes is a connect timeout', async () => {
    const sockets: Socket[] = [];
    const silent: TcpServer = createTcpServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    );
    const url = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const err = await failure(
      client({ connectTimeoutMs: 200 }).send({ method: 'GET', url, headers: {} }, { service: 'watsonx' }),
    );
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe(`cannot connect to watsonx at ${url}: no connection within 0.2 s`);
  });

  it('https to a plain-HTTP port is a NetworkError that points at the scheme', async () => {
    const plain = createHttpServer((_req, res) => res.end('plain'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          plain.closeAllConnections();
          plain.close(() => resolve());
        }),
    );
    const url = `https://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    const err = await failure(client().send({ method: 'GET', url, headers: {} }, { service: 'watsonx' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ hint: 'check that the URL scheme (http/https) and port are right' });
    expect((err as Error).message).toBe(
      `cannot connect to watsonx at ${url}: TLS handshake failed (wrong version number)`,
    );
  });
});
