import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { BIN, makeHome, runBin } from '../helpers/run-cli.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';

let certs: TestCerts;
let secure: RunningServer;
let plain: RunningServer;
const home = makeHome();

beforeAll(async () => {
  certs = makeTestCerts();
  [secure, plain] = await Promise.all([
    startServer({ requestLog: { max: 1000 }, tls: certs.serverTls() }),
    startServer({ requestLog: { max: 1000 } }),
  ]);
});

afterAll(async () => {
  await Promise.all([secure?.close(), plain?.close()]);
  certs?.cleanup();
  home.cleanup();
});

const generate = (url: string, flags: string[] = [], env: Record<string, string> = {}) =>
  runBin(
    ['--url', url, '--retries', '0', ...flags, 'deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hi'],
    {
      env: { ...home.env, ...env },
    },
  );

describe('TLS against the embedded server over HTTPS', () => {
  it('startServer({ tls }) serves on an https:// URL', () => {
    expect(secure.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('--ca-cert with the CA that signed the server certificate → exit 0 and the text', async () => {
    const r = await generate(secure.url, ['--ca-cert', certs.file('ca.pem')]);
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().length).toBeGreaterThan(0);
    expect(secure.requests.some((q) => q.path === '/ml/v1/deployments/demo/text/generation')).toBe(true);
  });

  it('without --ca-cert the private CA is untrusted → exit 5, one error line and a hint naming --ca-cert', async () => {
    const r = await generate(secure.url);
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: TLS verification failed for watsonx at ${secure.url}: certificate signed by an unknown CA\n` +
        'hint: use --ca-cert FILE or --insecure\n',
    );
  });

  it('--insecure works and warns on stderr', async () => {
    const r = await generate(secure.url, ['--insecure']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/^warning: TLS certificate verification is disabled \(--insecure\)$/m);
  });

  it("a profile's tls.ca_cert is read relative to the config file, not the working directory", async () => {
    const configDir = join(home.dir, 'profile-config');
    mkdirSync(join(configDir, 'certs'), { recursive: true });
    copyFileSync(certs.file('ca.pem'), join(configDir, 'certs', 'ca.pem'));
    const config = join(configDir, 'config.yaml');
    writeFileSync(
      config,
      [
        'profiles:',
        '  secure:',
        '    provider: watsonx',
        `    url: ${secure.url}`,
        '    retries: 0',
        '    tls:',
        '      ca_cert: certs/ca.pem',
        '',
      ].join('\n'),
    );
    const r = await runBin(
      [
        '--config',
        config,
        '--profile',
        'secure',
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--input',
        'Hi',
      ],
      {
        env: home.env,
        cwd: home.dir,
      },
    );
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().length).toBeGreaterThan(0);
  });
});

describe('textgen serve --tls-cert/--tls-key', () => {
  it('serves HTTPS that a --ca-cert client trusts, and stops on Ctrl-C', async () => {
    const child = execa(
      'node',
      [BIN, 'serve', '--port', '0', '--tls-cert', certs.file('server.pem'), '--tls-key', certs.file('server.key')],
      {
        env: { ...home.env, CI: 'true' },
        reject: false,
        stdin: 'ignore',
        timeout: 20_000,
      },
    );
    try {
      const url = await listeningUrl(child);
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const r = await generate(url, ['--ca-cert', certs.file('ca.pem')]);
      expect(r.stderr).not.toMatch(/^error:/m);
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trim().length).toBeGreaterThan(0);
    } finally {
      child.kill('SIGINT');
    }
    const done = await child;
    expect(done.timedOut).toBe(false);
    expect(done.exitCode).toBe(0);
    expect(done.stderr).toContain('textgen serve: stopped');
  });

  it.each([
    ['--tls-cert without --tls-key', ['--tls-cert', 'server.pem'], 'error: --tls-cert needs --tls-key too'],
    ['--tls-key without --tls-cert', ['--tls-key', 'server.key'], 'error: --tls-key needs --tls-cert too'],
    [
      'a missing certificate file',
      ['--tls-cert', 'missing.pem', '--tls-key', 'server.key'],
      'error: cannot read --tls-cert file missing.pem: no such file',
    ],
    [
      'a certificate file without a certificate',
      ['--tls-cert', 'server.key', '--tls-key', 'server.key'],
      'error: --tls-cert file server.key holds no PEM certificate',
    ],
    [
      'a key file without a key',
      ['--tls-cert', 'server.pem', '--tls-key', 'ca.pem'],
      'error: --tls-key file ca.pem holds no PEM private key',
    ],
    [
      'a key that does not fit the certificate',
      ['--tls-cert', 'server.pem', '--tls-key', 'ca.key'],
      'error: --tls-cert and --tls-key cannot be used together: ',
    ],
  ])('%s → exit 2 naming the flag', async (_name, flags, message) => {
    // Relative paths are read from the working directory.
    const r = await runBin(['serve', '--port', '0', ...flags], { env: home.env, cwd: certs.dir, timeout: 10_000 });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.split('\n')[0]).toContain(message);
  });
});

describe('proxies from HTTPS_PROXY, HTTP_PROXY and NO_PROXY', () => {
  let proxy: RecordingProxy;
  beforeAll(async () => {
    proxy = await startRecordingProxy();
  });
  afterAll(() => proxy?.close());
  afterEach(() => {
    proxy.uses.length = 0;
  });

  // undici's proxy agent tunnels plain HTTP with CONNECT as well, rather than sending absolute-URI requests.
  it('HTTP_PROXY carries a plain-HTTP request through the proxy, in a CONNECT tunnel', async () => {
    const r = await generate(plain.url, [], { HTTP_PROXY: proxy.url });
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.exitCode).toBe(0);
    expect(proxy.uses.length).toBeGreaterThan(0);
    for (const use of proxy.uses) expect(use).toEqual({ kind: 'connect', target: new URL(plain.url).host });
  });

  it('HTTPS_PROXY tunnels an HTTPS request with CONNECT; the certificate is still checked end to end', async () => {
    const r = await generate(secure.url, ['--ca-cert', certs.file('ca.pem')], { HTTPS_PROXY: proxy.url });
    expect(r.exitCode).toBe(0);
    expect(proxy.uses).toContainEqual({ kind: 'connect', target: new URL(secure.url).host });

    proxy.uses.length = 0;
    const untrusted = await generate(secure.url, [], { HTTPS_PROXY: proxy.url });
    expect(untrusted.exitCode).toBe(5);
    expect(untrusted.stderr).toContain('hint: use --ca-cert FILE or --insecure');
    expect(proxy.uses).toContainEqual({ kind: 'connect', target: new URL(secure.url).host });
  });

  it.each([
    ['plain HTTP', () => plain.url, [] as string[]],
    ['HTTPS', () => secure.url, ['--ca-cert']],
  ])('NO_PROXY=127.0.0.1 bypasses the proxy for %s', async (_name, url, flags) => {
    const extra = flags.length > 0 ? [...flags, certs.file('ca.pem')] : [];
    const r = await generate(url(), extra, { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
    expect(r.exitCode).toBe(0);
    expect(proxy.uses).toEqual([]);
  });
});

/** Waits (at most 10 s) for `serve` to print the URL it listens on. */
function listeningUrl(child: ReturnType<typeof execa>): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => finish(new Error(`serve printed no URL within 10 s; stderr: ${seen}`)), 10_000);
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString('utf8');
      const match = /listening on (\S+)/.exec(seen);
      if (match?.[1]) finish(match[1]);
    };
    const onExit = (): void => finish(new Error(`serve exited before listening; stderr: ${seen}`));
    function finish(result: string | Error): void {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      if (typeof result === 'string') resolve(result);
      else reject(result);
    }
    child.stderr?.on('data', onData);
    child.on('exit', onExit);
  });
}
