/**
 * Answers that crashed the CLI (issue 16, item 5), against the built CLI (`npm run build` first): JSON nested
 * thousands of levels deep (in an error body, in a field of a good answer, in a stream event), an answer of hundreds
 * of megabytes, and output that cannot be written (a full disk, a closed stdout). Each must end with its documented
 * exit code and one error line — never exit 1, never a stack trace. The suite ends with one line of figures.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { execa } from 'execa';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, makeHome, runBin, type CliResult } from '../helpers/run-cli.js';
import { runOnTerminal } from '../helpers/pty.js';

const home = makeHome();
const figures = { cases: 0, crashes: 0 };
afterAll(() => {
  home.cleanup();
  console.log(`hostile answers: ${figures.cases} cases, ${figures.crashes} crashes (exit 1 or a stack trace)`);
});

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

async function serve(answer: (res: ServerResponse, path: string) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res, req.url ?? ''));
  });
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

function send(res: ServerResponse, status: number, text: string, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const answer = (extra: string) =>
  `{"model_id":"m","created_at":"2024-01-01T00:00:00Z","results":[{"generated_text":"ok","generated_token_count":1,"input_token_count":1,"stop_reason":"eos_token","extra":${extra}}]}`;

const WX = (url: string) => ['--provider', 'watsonx', '--url', url, '--token', 't', '--retries', '0'];
const TG = ['deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hi'];

/** Every case: its exit code, one error line (after notes and warnings), no stack trace. */
function judged(r: CliResult, code: number, message: RegExp): void {
  figures.cases++;
  if (r.exitCode === 1 || /^\s+at /m.test(r.stderr)) figures.crashes++;
  expect(r.exitCode, r.stderr).toBe(code);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  const lines = r.stderr.split('\n').filter((l) => l !== '' && !/^(note|warning|hint|batch):? /.test(l));
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(message);
}

describe('answers that crashed the CLI (built CLI)', () => {
  it.each([
    ['deployment text-generate', TG],
    ['models', ['models']],
    ['health', ['health']],
  ])('a watsonx error body nested 6 000 levels deep: %s → exit 4', async (_name, command) => {
    const url = await serve((res) =>
      send(
        res,
        400,
        `{"errors":[{"code":"x","message":"m","more_info":${deep(6_000)}}],"trace":"t","status_code":400}`,
      ),
    );
    const r = await runBin([...WX(url), ...command], { env: home.env });
    judged(
      r,
      4,
      /^error: watsonx returned HTTP 400: the answer is JSON nested more than 256 levels deep; textgen does not read it$/,
    );
  });

  it.each([
    ['-o json', ['-o', 'json']],
    ['-o yaml', ['-o', 'yaml']],
    ['-o jsonl', ['-o', 'jsonl']],
    ['-j', ['-j', 'results[0].extra']],
    ['--raw', ['--raw']],
  ])('a good answer with a field nested 10 000 levels deep, %s → exit 4', async (_name, flags) => {
    const url = await serve((res) => send(res, 200, answer(deepArray(10_000))));
    const r = await runBin([...WX(url), ...TG, ...flags], { env: home.env });
    judged(r, 4, /nested more than 256 levels deep/);
    expect(r.stdout).toBe('');
  });

  it('a batch whose answers are nested 10 000 levels deep: every record is exit 4, not 1', async () => {
    const url = await serve((res) => send(res, 200, answer(deep(10_000))));
    const r = await runBin(
      [...WX(url), 'deployment', 'text-generate', '--id-or-name', 'demo', '--batch', '-', '-o', 'json'],
      { env: home.env, input: '"a"\n"b"\n' },
    );
    figures.cases++;
    expect(r.exitCode).toBe(4);
    const codes = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { error?: { exit_code: number } }).error?.exit_code);
    expect(codes).toEqual([4, 4]);
  });

  it('a stream event nested 10 000 levels deep → exit 6 after the text before it', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `event: message\ndata: {"model_id":"m","results":[{"generated_text":"Hello","generated_token_count":1,"input_token_count":1,"stop_reason":"not_finished"}]}\n\n`,
      );
      res.end(`event: message\ndata: ${answer(deep(10_000))}\n\n`);
    });
    const r = await runBin([...WX(url), ...TG, '--stream'], { env: home.env });
    judged(r, 6, /stream broke off: .*nested more than 256 levels deep/);
    expect(r.stdout).toMatch(/^Hello/);
  });

  it('an answer of 140 MB is cut at 128 MiB → exit 4, quickly and in bounded memory', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"results":[{"generated_text":"');
      const block = Buffer.alloc(1024 * 1024, 0x61);
      let sent = 0;
      const more = () => {
        while (sent < 140) {
          sent++;
          if (!res.write(block)) return void res.once('drain', more);
        }
        res.end('"}]}');
      };
      res.on('close', () => {
        sent = 1_000;
      });
      more();
    });
    const r = await runBin([...WX(url), ...TG], { env: home.env, timeout: 30_000 });
    judged(
      r,
      4,
      /^error: watsonx returned HTTP 200: the answer is larger than 128 MiB; textgen reads at most that much of an answer$/,
    );
  }, 60_000);

  it('a stream of 132 MiB in 1 MiB events is not cut at 128 MiB: each event is bounded, not the whole stream', async () => {
    const text = 'a'.repeat(1024 * 1024);
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const more = () => {
        while (sent < 132) {
          sent++;
          const reason = sent === 132 ? 'eos_token' : 'not_finished';
          const event = `event: message\ndata: {"model_id":"m","results":[{"generated_text":"${text}","generated_token_count":${sent},"input_token_count":1,"stop_reason":"${reason}"}]}\n\n`;
          if (!res.write(event)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => {
        sent = 1_000;
      });
      more();
    });
    const r = await runBin([...WX(url), ...TG, '--stream', '-o', 'json', '-j', 'results[0].stop_reason'], {
      env: home.env,
      timeout: 50_000,
    });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe('"eos_token"');
  }, 60_000);

  it.each([
    [
      'a full disk (> /dev/full)',
      '> /dev/full',
      /^error: cannot write the output: no space left on device \(ENOSPC\)$/,
    ],
    ['stdout closed (>&-)', '>&-', /^error: cannot write the output: stdout is closed, so it would be lost$/],
  ])('%s → exit 7 and one error line', async (_name, redirect, message) => {
    const r = await execa('sh', ['-c', `exec node "$0" "$@" ${redirect}`, BIN, '--profile', 'local', ...TG], {
      env: { ...baseEnv(), ...home.env, CI: 'true' },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 20_000,
    });
    judged({ exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) }, 7, message);
  });

  it('a batch writing to a full disk → exit 7', async () => {
    const r = await execa(
      'sh',
      [
        '-c',
        'exec node "$0" "$@" > /dev/full',
        BIN,
        '--profile',
        'local',
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--batch',
        '-',
      ],
      {
        env: { ...baseEnv(), ...home.env, CI: 'true' },
        extendEnv: false,
        reject: false,
        input: '"a"\n"b"\n',
        timeout: 20_000,
      },
    );
    judged(
      { exitCode: r.exitCode ?? -1, stdout: '', stderr: String(r.stderr) },
      7,
      /^error: cannot write the output: no space left on device \(ENOSPC\)$/,
    );
  });

  it('> /dev/null is discarding on purpose: exit 0', async () => {
    const r = await execa('sh', ['-c', 'exec node "$0" "$@" > /dev/null', BIN, '--profile', 'local', ...TG], {
      env: { ...baseEnv(), ...home.env, CI: 'true' },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 20_000,
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
  });
});

/** What a hostile service slips into its text: clipboard write, window title, clear screen, cursor report, C1 CSI. */
const ESCAPES = '\u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b]0;pwned\u0007\u001b[2J\u001b[6n\u009b31m';
const RAW = ['\u001b]52', '\u001b]0;', '\u001b[2J', '\u001b[6n', '\u009b'];

describe('terminal escapes from the service (built CLI)', () => {
  async function escapingServer(): Promise<string> {
    return serve((res, path) => {
      if (path.startsWith('/ml/v1/foundation_model_specs')) {
        return send(
          res,
          200,
          JSON.stringify({
            total_count: 1,
            limit: 100,
            resources: [
              { model_id: 'evil/model', label: 'evil', provider: 'x', short_description: `A model ${ESCAPES}` },
            ],
          }),
        );
      }
      send(
        res,
        200,
        JSON.stringify({
          model_id: 'm',
          created_at: '2024-01-01T00:00:00Z',
          results: [
            {
              generated_text: `Hello ${ESCAPES} world`,
              generated_token_count: 3,
              input_token_count: 1,
              stop_reason: `eos_token${ESCAPES}`,
            },
          ],
          system: { warnings: [{ id: 'w', message: `careful ${ESCAPES}` }] },
        }),
      );
    });
  }

  it.each([
    ['generated text, a system warning and the stop reason in the summary', TG],
    ['model descriptions in the models table', ['models']],
  ])('on a terminal: %s are shown visibly, never obeyed', async (_what, command) => {
    const url = await escapingServer();
    const r = await runOnTerminal([...WX(url), ...command], home.env);
    figures.cases++;
    expect(r.exitCode, r.screen).toBe(0);
    for (const raw of RAW)
      expect(
        r.screen.includes(raw),
        `raw ${JSON.stringify(raw)} reached the terminal: ${JSON.stringify(r.screen)}`,
      ).toBe(false);
    expect(r.screen).toContain('\\x1b]52;c;ZWNobyBwd25lZA==\\x07');
    expect(r.screen).toContain('\\x9b31m');
  });

  it('in a pipe and in -o json the data stays data', async () => {
    const url = await escapingServer();
    const text = await runBin([...WX(url), ...TG, '-q'], { env: home.env });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toBe(`Hello ${ESCAPES} world\n`);
    const json = await runBin([...WX(url), ...TG, '-q', '-o', 'json'], { env: home.env });
    expect((JSON.parse(json.stdout) as { results: Array<{ generated_text: string }> }).results[0]!.generated_text).toBe(
      `Hello ${ESCAPES} world`,
    );
    // Warnings are messages: escaped on stderr wherever it goes.
    const warned = await runBin([...WX(url), ...TG], { env: home.env });
    expect(warned.stderr).toContain('warning: [w] careful \\x1b]52;c;');
    expect(warned.stderr).not.toMatch(/[\u001b\u009b]/);
  });
});

describe('a token service that answers wrongly (built CLI)', () => {
  /** A watsonx service with its own IAM endpoint: `token()` decides each exchange's reply; generations succeed. */
  async function iamServer(
    token: () => { access_token: string; expires_in: number },
  ): Promise<{ url: string; exchanges: () => number; generations: () => number }> {
    let exchanges = 0;
    let generations = 0;
    const url = await serve((res, path) => {
      if (path.startsWith('/identity/token')) {
        exchanges++;
        return send(
          res,
          200,
          JSON.stringify({
            ...token(),
            refresh_token: 'not_supported',
            token_type: 'Bearer',
            expiration: Math.floor(Date.now() / 1000),
          }),
        );
      }
      generations++;
      send(res, 200, answer('1'));
    });
    return { url, exchanges: () => exchanges, generations: () => generations };
  }

  const iam = (url: string) => [
    '--provider',
    'watsonx',
    '--url',
    url,
    '--api-key',
    'iam-key-for-the-test',
    '--retries',
    '0',
  ];
  const iamEnv = (url: string) => ({
    ...home.env,
    TEXTGEN_IAM_URL: `${url}/identity/token`,
    TEXTGEN_SPACE_ID: 'space-1',
  });

  it('a token with CR/LF is exit 3 naming IBM Cloud IAM, is never cached, and the next run with a healthy IAM works', async () => {
    let poisoned = true;
    const s = await iamServer(() => ({
      access_token: poisoned ? 'eyJhbGciOi.abc\r\nX-Injected: 1' : 'eyJhbGciOi.good.token',
      expires_in: 3600,
    }));
    const bad = await runBin([...iam(s.url), ...TG], { env: iamEnv(s.url) });
    judged(bad, 3, /^error: IBM Cloud IAM token exchange failed: the access_token in its reply is not a usable token/);
    expect(s.generations()).toBe(0);
    poisoned = false;
    const good = await runBin([...iam(s.url), ...TG, '-q'], { env: iamEnv(s.url) });
    expect(good.exitCode, good.stderr).toBe(0);
    expect(s.exchanges()).toBe(2);
  });

  it('a cache file holding a token with a line break (an older version wrote it) is a miss, not exit 2 until it expires', async () => {
    const { createTokenCache, tokenCacheDir } = await import('../../src/config/token-cache.js');
    const { tokenCacheKey } = await import('../../src/contract/token-cache.js');
    const { mkdirSync, writeFileSync, readdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const s = await iamServer(() => ({ access_token: 'eyJhbGciOi.fresh.token', expires_in: 3600 }));
    const key = tokenCacheKey(['iam', `${s.url}/identity/token`, '', 'iam-key-for-the-test']);
    const dir = tokenCacheDir(home.env);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${key}.json`),
      JSON.stringify({ token: 'poisoned\r\nX-Injected: 1', expiresAt: Date.now() + 3_600_000 }),
    );
    expect(readdirSync(dir)).toContain(`${key}.json`);
    const r = await runBin([...iam(s.url), ...TG, '-q'], { env: iamEnv(s.url) });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(s.exchanges()).toBe(1);
    expect((await createTokenCache({ env: home.env }).get(key))?.token).toBe('eyJhbGciOi.fresh.token');
  });

  it('a token already expired (expires_in 0) in a batch of 200 lines: one warning, one exchange', async () => {
    const s = await iamServer(() => ({ access_token: 'eyJhbGciOi.expired.token', expires_in: 0 }));
    const input = Array.from({ length: 200 }, (_, i) => JSON.stringify(`line ${i + 1}`)).join('\n');
    const r = await runBin(
      [...iam(s.url), 'deployment', 'text-generate', '--id-or-name', 'demo', '--batch', '-', '--concurrency', '8'],
      { env: iamEnv(s.url), input },
    );
    figures.cases++;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(s.generations()).toBe(200);
    expect(s.exchanges()).toBe(1);
    expect(
      r.stderr.match(/^warning: IBM Cloud IAM issued a token that has expired or is about to \(expires_in 0 s\)/gm),
    ).toHaveLength(1);
  });
});

describe('compressed answers, as gateways send them (built CLI)', () => {
  const zlibOf = async () => await import('node:zlib');

  it.each(['gzip', 'br', 'deflate'] as const)('a %s JSON answer is advertised for and decoded', async (encoding) => {
    const zlib = await zlibOf();
    const seen: string[] = [];
    const compress = { gzip: zlib.gzipSync, br: zlib.brotliCompressSync, deflate: zlib.deflateSync }[encoding];
    const url = await serve((res) => {
      const body = compress(Buffer.from(answer('"compressed"').replace('"ok"', '"unpacked"')));
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': encoding,
        'content-length': String(body.length),
      });
      res.end(body);
    });
    const server = open.at(-1)!;
    server.prependListener('request', (req) => seen.push(String(req.headers['accept-encoding'])));
    const r = await runBin([...WX(url), ...TG, '-q'], { env: home.env });
    figures.cases++;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('unpacked\n');
    expect(seen[0]).toMatch(/gzip/);
    expect(seen[0]).toMatch(/br/);
    expect(seen[0]).toMatch(/deflate/);
  });

  it('a gzip event stream streams and ends as the service said (not "ended before finished")', async () => {
    const zlib = await zlibOf();
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      const gz = zlib.createGzip();
      gz.pipe(res);
      const event = (text: string, stop: string) =>
        `event: message\ndata: {"model_id":"m","results":[{"generated_text":"${text}","generated_token_count":1,"input_token_count":1,"stop_reason":"${stop}"}]}\n\n`;
      gz.write(event('Hello', 'not_finished'));
      gz.flush(zlib.constants.Z_SYNC_FLUSH, () => {
        gz.write(event(' world', 'eos_token'));
        gz.end();
      });
    });
    const r = await runBin([...WX(url), ...TG, '--stream', '-q'], { env: home.env });
    figures.cases++;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('Hello world\n');
  });

  it('a gzip bomb stops at the 128 MiB cap on what is read (exit 4)', async () => {
    const zlib = await zlibOf();
    // 140 MiB once decoded, about 150 kB on the wire: one compressed MiB, sent as 140 gzip members (a gzip stream may
    // hold several, one after another), so making the bomb costs the test next to nothing.
    const member = zlib.gzipSync(Buffer.alloc(1024 * 1024, 0x61));
    const bomb = Buffer.concat([
      zlib.gzipSync('{"results":[{"generated_text":"'),
      ...Array.from({ length: 140 }, () => member),
    ]);
    const url = await serve((res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': String(bomb.length),
      });
      res.end(bomb);
    });
    const r = await runBin([...WX(url), ...TG], { env: home.env, timeout: 30_000 });
    judged(r, 4, /^error: watsonx returned HTTP 200: the answer is larger than 128 MiB/);
  }, 60_000);
});
