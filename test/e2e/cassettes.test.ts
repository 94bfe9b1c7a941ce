/**
 * Cassettes through the built CLI (docs/cassettes.md): record every provider's calls against the embedded server
 * (credentials required, watsonx through its IAM token exchange), stop the server, and replay with no credentials
 * and no network at all — a preload makes every socket connect fail — for byte-identical output, streams event by
 * event. Then a miss (exit 4, one line: the key, the nearest entry, the first JSON path that differs), a sentinel
 * key found nowhere in the cassette in any encoding, and `cassette ls|show|prune`.
 */
import { createServer, type Server } from 'node:http';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { makeHome, runBin } from '../helpers/run-cli.js';

const KEY = 'cassette-suite-key-0001';
const home = makeHome();
const CASSETTE = join(home.dir, 'cassette');
const PRELOAD = join(home.dir, 'no-network.mjs');
let upstream: RunningServer | undefined;

/** The same command line for each protocol; the model is one every local protocol serves (watsonx: its `demo`). */
const PROFILES = ['wx', 'openai', 'aa', 'oip'] as const;
const model = (p: string) => (p === 'wx' ? 'demo' : 'luminous-base');
const generate = (p: string, stream: boolean, input = 'Tell me about rivers') => [
  '--profile',
  p,
  'deployment',
  stream ? 'text-generate-stream' : 'text-generate',
  '--id-or-name',
  model(p),
  '--input',
  input,
  '--parameters-max-new-tokens',
  '8',
  '--raw',
];

/** Every file under `dir`, as bytes. */
function allFiles(dir: string): Array<{ file: string; bytes: Buffer }> {
  const out: Array<{ file: string; bytes: Buffer }> = [];
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) out.push(...allFiles(file));
    else out.push({ file, bytes: readFileSync(file) });
  }
  return out;
}

/** Replay as CI does: no credential in the environment, and every socket connect refused (a preload). */
const offline = { NODE_OPTIONS: `--import=${PRELOAD}` };
const withKeys = { WX_KEY: KEY, TG_KEY: KEY };
/** For a test that runs the CLI eight or more times (a loaded machine makes each run take seconds). */
const SLOW = 180_000;

beforeAll(async () => {
  upstream = await startServer({ requireAuth: true, apiKeys: [KEY], requestLog: { max: 1000 } });
  const url = upstream.url;
  const bearer = '{ type: bearer, token_env: TG_KEY }';
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  writeFileSync(
    join(home.dir, 'config', 'textgen', 'config.yaml'),
    [
      'profiles:',
      `  wx: { provider: watsonx, url: "${url}", auth: { type: iam, apikey_env: WX_KEY, iam_url: "${url}/identity/token" } }`,
      `  openai: { provider: openai, url: "${url}/v1", auth: ${bearer} }`,
      `  aa: { provider: aleph-alpha, url: "${url}", streaming: true, auth: ${bearer} }`,
      `  oip: { provider: open-inference, url: "${url}", auth: ${bearer} }`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    PRELOAD,
    [
      "import net from 'node:net';",
      "import dns from 'node:dns';",
      'const refused = (what) => {',
      '  process.stderr.write(`no-network preload: ${what} refused\\n`);',
      "  return Object.assign(new Error(`network blocked: ${what}`), { code: 'ECONNREFUSED' });",
      '};',
      '// As a refused connection is: the socket fails on the next tick.',
      'net.Socket.prototype.connect = function () {',
      "  const err = refused('socket connect');",
      '  process.nextTick(() => this.destroy(err));',
      '  return this;',
      '};',
      "dns.lookup = (host, opts, cb) => (typeof opts === 'function' ? opts : cb)(refused('dns lookup'));",
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await upstream?.close();
  home.cleanup();
});

describe('record, then replay with the upstream stopped, no credentials and no network', () => {
  const recorded = new Map<string, string>();

  it(
    'records each provider, plain and streamed (watsonx through its IAM exchange)',
    async () => {
      for (const p of PROFILES) {
        for (const stream of [false, true]) {
          const r = await runBin(['--record', CASSETTE, ...generate(p, stream)], { env: { ...home.env, ...withKeys } });
          expect(r.stderr, `${p} ${stream}`).toBe('');
          expect(r.exitCode, `${p} ${stream}`).toBe(0);
          expect(r.stdout.length).toBeGreaterThan(0);
          recorded.set(`${p} ${stream}`, r.stdout);
        }
      }
      const paths = upstream!.requests.map((r) => r.path);
      expect(paths).toContain('/identity/token');
      // One file per call; the token exchange is no entry, and no file holds the key.
      const names = readdirSync(CASSETTE).filter((n) => !n.startsWith('.'));
      expect(names).toHaveLength(8);
      expect(names.some((n) => n.includes('identity'))).toBe(false);
      expect(names.filter((n) => n.endsWith('.jsonl'))).toHaveLength(4);
      for (const { file, bytes } of allFiles(CASSETTE)) expect(bytes.includes(KEY), file).toBe(false);
    },
    SLOW,
  );

  it(
    'replays byte for byte, stream events in the same number, order and bytes',
    async () => {
      await upstream!.close();
      for (const p of PROFILES) {
        for (const stream of [false, true]) {
          const r = await runBin(['--replay', CASSETTE, ...generate(p, stream)], { env: { ...home.env, ...offline } });
          expect(r.stderr, `${p} ${stream}`).toBe('');
          expect(r.exitCode, `${p} ${stream}`).toBe(0);
          expect(r.stdout, `${p} ${stream}`).toBe(recorded.get(`${p} ${stream}`));
        }
      }
    },
    SLOW,
  );

  it('the preload does block the network: without --replay the same command fails to connect', async () => {
    const r = await runBin(generate('openai', false), { env: { ...home.env, ...withKeys, ...offline } });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('no-network preload: socket connect refused');
  });

  it('replays at the recorded pace with --replay-timing recorded, and at once without', async () => {
    const args = ['--replay', CASSETTE, ...generate('openai', true)];
    const fast = await runBin(args, { env: { ...home.env, ...offline } });
    const paced = await runBin([...args, '--replay-timing', 'recorded'], { env: { ...home.env, ...offline } });
    expect(paced.exitCode).toBe(0);
    expect(paced.stdout).toBe(fast.stdout);
  });

  it('a miss exits 4 with one line: the key, the nearest entry and the first JSON path that differs', async () => {
    const r = await runBin(['--replay', CASSETTE, ...generate('openai', false, 'Tell me about lakes')], {
      env: { ...home.env, ...offline },
    });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^error: cassette miss: no entry for openai POST \/v1\/completions \(key [0-9a-f]{20}\); nearest is .*openai-post-v1-completions-[0-9a-f]{20}\.json, first different at \$\.body\.prompt \(sent "Tell me about lakes", recorded "Tell me about rivers"\)$/,
    );
  });

  it('--match ignore=PATH widens the key at replay time: the entry recorded under the default rules answers', async () => {
    const r = await runBin(
      ['--replay', CASSETTE, '--match', 'ignore=prompt', ...generate('openai', false, 'Tell me about lakes')],
      { env: { ...home.env, ...offline } },
    );
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(recorded.get('openai false'));
  });

  it('a bad --match rule or --replay-timing is a usage error', async () => {
    const bad = await runBin(['--replay', CASSETTE, '--match', 'nonsense', ...generate('openai', false)], {
      env: home.env,
    });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^error: --match: unknown rule "nonsense"/);
    const timing = await runBin(['--replay', CASSETTE, '--replay-timing', 'fast', ...generate('openai', false)], {
      env: home.env,
    });
    expect(timing.exitCode).toBe(2);
    expect(timing.stderr).toMatch(/^error: --replay-timing must be none or recorded/);
    const both = await runBin(['--replay', CASSETTE, '--record', CASSETTE, ...generate('openai', false)], {
      env: home.env,
    });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/^error: --record and --replay cannot be used together/);
  });

  it(
    'cassette ls lists every entry; show prints one; prune removes what the last run did not use',
    async () => {
      const ls = await runBin(['cassette', 'ls', CASSETTE, '-o', 'json'], { env: home.env });
      expect(ls.exitCode).toBe(0);
      const rows = JSON.parse(ls.stdout) as Array<Record<string, unknown>>;
      expect(rows).toHaveLength(8);
      expect(rows.filter((r) => r.stream === true)).toHaveLength(4);
      expect(new Set(rows.map((r) => r.protocol))).toEqual(
        new Set(['watsonx', 'openai', 'aleph-alpha', 'open-inference']),
      );
      for (const row of rows)
        expect(Object.keys(row)).toEqual(['key', 'protocol', 'method', 'path', 'status', 'stream', 'size', 'file']);
      const text = await runBin(['cassette', 'ls', CASSETTE], { env: home.env });
      expect(text.stdout.trimEnd().split('\n')).toHaveLength(8);
      expect(text.stdout).toMatch(
        /^[0-9a-f]{20}\s+watsonx\s+POST\s+\/ml\/v1\/deployments\/demo\/text\/generation_stream\s+200\s+stream\s+\d+/m,
      );

      const wx = rows.find((r) => r.protocol === 'watsonx' && r.stream === true)!;
      const show = await runBin(['cassette', 'show', CASSETTE, String(wx.key).slice(0, 8)], { env: home.env });
      expect(show.exitCode).toBe(0);
      expect(show.stdout).toBe(readFileSync(join(CASSETTE, String(wx.file)), 'utf8'));
      expect(show.stdout).not.toContain(KEY);
      const missing = await runBin(['cassette', 'show', CASSETTE, 'abcdef'], { env: home.env });
      expect(missing.exitCode).toBe(2);
      expect(missing.stderr).toMatch(/^error: no entry with key abcdef in /);

      // A run that uses only the openai entries, then prune what it did not use.
      const run = { ...home.env, ...offline, TEXTGEN_CASSETTE_RUN: 'ci-only-openai' };
      for (const stream of [false, true])
        expect((await runBin(['--replay', CASSETTE, ...generate('openai', stream)], { env: run })).exitCode).toBe(0);
      const dry = await runBin(['cassette', 'prune', CASSETTE, '--unused-since-run', '--dry-run'], { env: home.env });
      expect(dry.exitCode).toBe(0);
      expect(dry.stdout.trimEnd().split('\n')).toHaveLength(6);
      expect(dry.stderr).toMatch(/cassette prune: would remove 6 of 8 entries \(run ci-only-openai\)/);
      expect(readdirSync(CASSETTE).filter((n) => !n.startsWith('.'))).toHaveLength(8);
      const pruned = await runBin(['cassette', 'prune', CASSETTE, '--unused-since-run', 'ci-only-openai'], {
        env: home.env,
      });
      expect(pruned.exitCode).toBe(0);
      expect(readdirSync(CASSETTE).filter((n) => !n.startsWith('.'))).toEqual(
        rows.filter((r) => r.protocol === 'openai').map((r) => r.file),
      );
      const none = await runBin(['cassette', 'prune', CASSETTE], { env: home.env });
      expect(none.exitCode).toBe(2);
      expect(none.stderr).toMatch(/^error: cassette prune needs --unused-since-run or --older-than/);
    },
    SLOW,
  );
});

describe('secrets never reach a cassette', () => {
  const SENTINEL = 'tg-SENTINEL-9f8e/+=?&"\\x';
  let echo: Server;
  let url = '';

  beforeAll(async () => {
    // An upstream that echoes the credential back in every encoding: body (raw, JSON-escaped, base64, URL- and
    // form-encoded), headers, a cookie — and a token service's answer.
    echo = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const auth = String(req.headers.authorization ?? '');
        const key = auth.replace(/^Bearer /, '');
        const forms = {
          raw: key,
          b64: Buffer.from(key).toString('base64'),
          url: encodeURIComponent(key),
          form: new URLSearchParams({ k: key }).toString(),
          echoed_body: body,
        };
        res.writeHead(200, {
          'content-type': 'application/json',
          'set-cookie': `session=${encodeURIComponent(key)}`,
          'x-echo-key': Buffer.from(key).toString('base64'),
        });
        res.end(
          JSON.stringify({
            // A field of a token service's answer, whose value no one knew before it came.
            access_token: 'issued-token-0001',
            id: 'cmpl-1',
            object: 'text_completion',
            created: 1,
            model: 'm',
            choices: [{ text: `${JSON.stringify(forms)} ${key}`, index: 0, logprobs: null, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

  it('records with a sentinel key and finds it 0 times on disk, in any encoding', async () => {
    const dir = join(home.dir, 'secret-cassette');
    const r = await runBin(
      [
        '--provider',
        'openai',
        '--url',
        `${url}/v1`,
        '--token',
        SENTINEL,
        '--record',
        dir,
        'complete',
        '-m',
        'm',
        `please repeat ${SENTINEL}`,
      ],
      { env: home.env },
    );
    expect(r.exitCode).toBe(0);
    const forms = [
      SENTINEL,
      encodeURIComponent(SENTINEL),
      new URLSearchParams({ k: SENTINEL }).toString().slice(2),
      Buffer.from(SENTINEL).toString('base64'),
      Buffer.from(SENTINEL).toString('base64').replace(/=+$/, ''),
      JSON.stringify(SENTINEL).slice(1, -1),
      JSON.stringify(JSON.stringify(SENTINEL).slice(1, -1)).slice(1, -1),
      'SENTINEL-9f8e',
      'issued-token-0001',
    ];
    const files = allFiles(dir);
    expect(files.length).toBe(1);
    for (const { file, bytes } of files)
      for (const form of forms) expect(bytes.includes(form), `${form} in ${file}`).toBe(false);
    const text = files[0]!.bytes.toString('utf8');
    expect(text).not.toMatch(/set-cookie|authorization/i);
    expect(text).toContain('***');
  });
});
