import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { makeHome, runInProcess } from '../helpers/run-cli.js';
import { startServer } from '../../src/emulator/core/index.js';
import { expectValidWatsonxWire } from '../helpers/wire.js';
import { useServer } from '../helpers/server-fixture.js';
import { generationRequests } from '../helpers/wire.js';

const fixture = useServer();
const dir = mkdtempSync(join(tmpdir(), 'textgen-batch-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function file(lines: string[]): string {
  const path = join(dir, `in-${++files}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

interface Rec {
  line: number;
  id?: unknown;
  result?: { results: Array<{ generated_text: string; generated_token_count: number }> } & Record<string, unknown>;
  error?: { exit_code: number; message: string; status?: number; code?: string };
}
const records = (stdout: string): Rec[] =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);

const tg = (args: string[], input?: string, url = fixture.server.url) =>
  runInProcess(
    ['--url', url, 'deployment', 'text-generate', '--id-or-name', 'demo', '--parameters-max-new-tokens', '4', ...args],
    {
      env: fixture.home.env,
      ...(input !== undefined ? { input } : {}),
    },
  );

describe('deployment text-generate --batch', () => {
  it('one record per line in order; blank lines keep their number; bad lines get error records; exit 4', async () => {
    fixture.server.faults.push({
      kind: 'status',
      status: 400,
      body: { errors: [{ code: 'invalid_input_argument', message: 'bad thing' }], trace: 't1', status_code: 400 },
    });
    const path = file([
      '{"input":"first","id":"a"}', // the 400 (concurrency 1: the first request)
      '',
      '"a bare string"',
      '{"input":',
      '{"input":"x","parameters":{"top_k":500},"id":4}',
      '{"input":"y","parameters":{"max_new_tokens":2},"id":"b"}',
    ]);
    const r = await tg(['--batch', path, '--concurrency', '1']);
    expect(r.exitCode).toBe(4);
    const recs = records(r.stdout);
    expect(recs.map((x) => x.line)).toEqual([1, 3, 4, 5, 6]);
    expect(recs[0]).toEqual({
      line: 1,
      id: 'a',
      error: {
        exit_code: 4,
        message: 'watsonx returned HTTP 400 invalid_input_argument: bad thing (trace t1)',
        status: 400,
        code: 'invalid_input_argument',
      },
    });
    expect(recs[1]?.result?.results[0]?.generated_token_count).toBe(4);
    expect(recs[2]?.error).toMatchObject({ exit_code: 2, message: expect.stringMatching(/not JSON/) });
    expect(recs[3]).toEqual({
      line: 5,
      id: 4,
      error: { exit_code: 2, message: '"parameters" of the line: top_k must be an integer from 1 to 100, got 500' },
    });
    expect(recs[4]).toMatchObject({ line: 6, id: 'b', result: { results: [{ generated_token_count: 2 }] } });
    expect(Object.keys(recs[4] as object)).toEqual(['line', 'id', 'result']);
    expect(Object.keys(recs[4]?.result as object)).toEqual(['model_id', 'model_version', 'created_at', 'results']);
    expect(r.stderr).toMatch(
      /^batch: 5 lines processed, 2 succeeded, 3 failed, 0 skipped in [\d.]+ s \([\d.]+ lines\/s\)$/m,
    );
    const sent = generationRequests(fixture.server.requests);
    expect(sent).toHaveLength(3);
    expect(sent.map((q) => (q.json as { parameters: { max_new_tokens: number } }).parameters.max_new_tokens)).toEqual([
      4, 4, 2,
    ]);
  });

  it('every line succeeding → exit 0, records carry the canonical result of -o json', async () => {
    const r = await tg(['--batch', file(['"one"', '"two"', '"three"']), '--parameters-decoding-method', 'greedy']);
    expect(r.exitCode).toBe(0);
    const single = await tg(['--input', 'two', '-o', 'json', '--parameters-decoding-method', 'greedy']);
    const expected = JSON.parse(single.stdout) as Record<string, unknown>;
    const got = records(r.stdout)[1]?.result as Record<string, unknown>;
    expect(Object.keys(got)).toEqual(Object.keys(expected));
    expect((got.results as unknown[])[0]).toEqual((expected.results as unknown[])[0]);
  });

  it('reads the lines from stdin with --batch -', async () => {
    const r = await tg(['--batch', '-'], '{"input":"from stdin","id":1}\n"second"\n');
    expect(r.exitCode).toBe(0);
    expect(records(r.stdout).map((x) => [x.line, x.id])).toEqual([
      [1, 1],
      [2, undefined],
    ]);
  });

  it('-j applies to each result', async () => {
    const r = await tg(['--batch', file(['"a"', '"b"']), '-j', 'results[0].generated_token_count']);
    expect(records(r.stdout)).toEqual([
      { line: 1, result: 4 },
      { line: 2, result: 4 },
    ]);
  });

  it("--raw puts the provider's own body in the record", async () => {
    const r = await tg(['--batch', file(['"a"']), '--raw']);
    expect(Object.keys(records(r.stdout)[0]?.result ?? {})).toContain('results');
  });

  it.each([
    [['--batch', 'IN', '--concurrency', '0'], /--concurrency must be an integer from 1 to 1024/],
    [['--batch', 'IN', '--parameters-top-k', '500'], /--parameters-top-k must be an integer from 1 to 100/],
    [['--batch', 'IN', '--input', 'hi'], /--input cannot be used with --batch/],
    [['--batch', 'IN', '-o', 'yaml'], /-o yaml cannot be used with it/],
    [['--batch', 'IN', '--shard', '3/2'], /--shard must be K\/N/],
    [['--batch', 'IN', '--extra', '[1]'], /--extra/],
    [['--batch', 'IN', '--parameters-return-options', '{"generated_tokenz":true}'], /unknown field "generated_tokenz"/],
    [['--batch', '-', '--parameters', '@-'], /no option can read @- as well/],
    [['--batch', join(tmpdir(), 'textgen-no-such-file.jsonl')], /--batch: cannot read .*: no such file/],
    [['--concurrency', '8', '--input', 'x'], /--concurrency works only with --batch/],
  ])('%j is a usage error before anything is sent (exit 2)', async (args, message) => {
    const path = file(['"x"']);
    const r = await tg(
      args.map((a) => (a === 'IN' ? path : a)),
      '',
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(generationRequests(fixture.server.requests)).toHaveLength(0);
  });

  it("--dry-run prints the first line's request and tells how many would be sent", async () => {
    const r = await tg([
      '--batch',
      file(['"first"', '"second"', '{"input":"x","parameters":{"top_k":0}}']),
      '--dry-run',
    ]);
    expect(r.stdout).toMatch(/^curl .*first/);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /dry run: 2 requests would be sent, one per line \(the first is shown\); 1 line would fail before sending \(line 3\)/,
    );
    expect(r.exitCode).toBe(4);
    expect(generationRequests(fixture.server.requests)).toHaveLength(0);
  });

  it('the N shards together cover every line exactly once, with their own line numbers', async () => {
    const path = file(
      Array.from({ length: 20 }, (_, i) => (i === 9 ? '' : JSON.stringify({ input: `p${i + 1}`, id: i + 1 }))),
    );
    const seen: number[] = [];
    for (const k of [1, 2, 3]) {
      const r = await tg(['--batch', path, '--shard', `${k}/3`, '--concurrency', '8']);
      expect(r.exitCode).toBe(0);
      const recs = records(r.stdout);
      for (const x of recs) {
        expect((x.line - 1) % 3).toBe(k - 1);
        expect(x.id).toBe(x.line);
      }
      seen.push(...recs.map((x) => x.line));
    }
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1).filter((n) => n !== 10));
  });

  it('text-generate-stream --batch generates each line whole (not streamed on the wire)', async () => {
    const r = await runInProcess(
      [
        '--url',
        fixture.server.url,
        'deployment',
        'text-generate-stream',
        '--id-or-name',
        'demo',
        '--batch',
        file(['"a"', '"b"']),
      ],
      { env: fixture.home.env },
    );
    expect(r.exitCode).toBe(0);
    expect(records(r.stdout)).toHaveLength(2);
    expect(generationRequests(fixture.server.requests).every((q) => !q.path.endsWith('_stream'))).toBe(true);
  });

  it('a 401 stops the batch early with exit 3', async () => {
    fixture.server.faults.push({ kind: 'status', status: 401, times: Number.POSITIVE_INFINITY });
    const r = await tg(['--batch', file(Array.from({ length: 50 }, (_, i) => `"p${i}"`)), '--concurrency', '4']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/batch stopped at line \d+ \(exit code 3\): authentication failed/);
    expect(generationRequests(fixture.server.requests).length).toBeLessThanOrEqual(8);
    const recs = records(r.stdout);
    expect(recs.at(-1)?.error).toMatchObject({ exit_code: 3, status: 401 });
  });

  it('--fail-fast stops at the first failed line, writes the records before it, exits with its code', async () => {
    const lines = Array.from({ length: 30 }, (_, i) =>
      i === 4 ? '{"input":"x","parameters":{"top_k":0}}' : `"p${i + 1}"`,
    );
    const r = await tg(['--batch', file(lines), '--fail-fast', '--concurrency', '2']);
    expect(r.exitCode).toBe(2);
    expect(records(r.stdout).map((x) => x.line)).toEqual([1, 2, 3, 4, 5]);
    expect(r.stderr).toMatch(/batch stopped at line 5 \(exit code 2\)/);
    expect(generationRequests(fixture.server.requests).length).toBeLessThan(30);
  });

  it('retries a 503 per line, up to --retries', async () => {
    fixture.server.faults.push({ kind: 'status', status: 503, times: 2, retryAfterMs: 10 });
    const r = await tg(['--batch', file(['"a"']), '--retries', '2']);
    expect(r.exitCode).toBe(0);
    expect(generationRequests(fixture.server.requests)).toHaveLength(3);
    fixture.server.faults.length = 0;
    fixture.server.faults.push({ kind: 'status', status: 503, times: 5, retryAfterMs: 10 });
    const failed = await tg(['--batch', file(['"a"']), '--retries', '1']);
    expect(failed.exitCode).toBe(4);
    expect(records(failed.stdout)[0]?.error).toMatchObject({ exit_code: 4, status: 503 });
  });
});

describe('a client-side time limit in a batch', () => {
  it('streams that line on the wire and keeps what came in time; a line past its limit reports stop_reason time_limit', async () => {
    // Queued for the first request only: the line with the short limit goes first (concurrency 1).
    fixture.server.faults.push({ kind: 'delay', ms: 400 });
    const path = file([
      '{"input":"slow","parameters":{"time_limit":100}}',
      '{"input":"quick","parameters":{"time_limit":20000}}',
      '"plain"',
    ]);
    const r = await runInProcess(
      [
        '--provider',
        'azure-openai',
        '--url',
        fixture.server.url,
        '--api-key',
        'k',
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--parameters-max-new-tokens',
        '3',
        '--batch',
        path,
        '--concurrency',
        '1',
      ],
      { env: fixture.home.env },
    );
    expect(r.exitCode).toBe(0);
    const recs = records(r.stdout) as unknown as Array<{
      result: { results: Array<{ stop_reason: string; generated_text: string }> };
    }>;
    expect(recs[0]?.result.results[0]).toMatchObject({ stop_reason: 'time_limit', generated_text: '' });
    expect(recs[1]?.result.results[0]?.stop_reason).toBe('max_tokens');
    expect(recs[1]?.result.results[0]?.generated_text).not.toBe('');
    const bodies = fixture.server.requests
      .filter((q) => q.path.startsWith('/openai/'))
      .map((q) => (q.json as { stream?: boolean }).stream === true);
    // The line without a limit is not streamed; the ones with a client deadline are.
    expect(bodies.slice(-2)).toEqual([true, false]);
  });
});

describe('credentials in a batch', () => {
  it('the IAM token is fetched once for the whole batch and shared by every line', async () => {
    const key = 'batch-apikey-0123456789';
    const server = await startServer({ requestLog: { max: 1000 }, requireAuth: true, apiKeys: [key] });
    const home = makeHome();
    try {
      const r = await runInProcess(
        [
          'deployment',
          'text-generate',
          '--id-or-name',
          'demo',
          '--batch',
          file(Array.from({ length: 24 }, (_, i) => `"p${i}"`)),
          '--concurrency',
          '8',
        ],
        {
          env: {
            ...home.env,
            TEXTGEN_URL: server.url,
            TEXTGEN_API_KEY: key,
            TEXTGEN_IAM_URL: `${server.url}/identity/token`,
          },
        },
      );
      expect(r.exitCode).toBe(0);
      expect(server.requests.filter((q) => q.path === '/identity/token')).toHaveLength(1);
      const sent = generationRequests(server.requests);
      expect(sent).toHaveLength(24);
      expect(new Set(sent.map((q) => q.headers.authorization)).size).toBe(1);
      expectValidWatsonxWire(server.requests);
    } finally {
      await server.close();
      home.cleanup();
    }
  });

  it('a refused API key stops the batch before any line is sent (exit 3)', async () => {
    const server = await startServer({ requestLog: { max: 1000 }, requireAuth: true, apiKeys: ['the-right-key-0123'] });
    const home = makeHome();
    try {
      const r = await runInProcess(
        ['deployment', 'text-generate', '--id-or-name', 'demo', '--batch', file(['"a"', '"b"'])],
        {
          env: {
            ...home.env,
            TEXTGEN_URL: server.url,
            TEXTGEN_API_KEY: 'a-wrong-key-0123',
            TEXTGEN_IAM_URL: `${server.url}/identity/token`,
          },
        },
      );
      expect(r.exitCode).toBe(3);
      expect(r.stdout).toBe('');
      expect(generationRequests(server.requests)).toHaveLength(0);
    } finally {
      await server.close();
      home.cleanup();
    }
  });
});

describe('complete --batch and embed --batch', () => {
  it('complete runs one completion per line; line parameters override the flags', async () => {
    const r = await runInProcess(
      [
        '--url',
        fixture.server.url,
        'complete',
        '-m',
        'ibm/granite-13b-instruct-v2',
        '--max-tokens',
        '3',
        '--batch',
        file(['"a"', '{"input":"b","parameters":{"max_new_tokens":1},"id":"z"}']),
      ],
      { env: { ...fixture.home.env, TEXTGEN_SPACE_ID: 'space-1' } },
    );
    expect(r.exitCode).toBe(0);
    const recs = records(r.stdout);
    expect(recs.map((x) => x.result?.results[0]?.generated_token_count)).toEqual([3, 1]);
    expect(recs[1]?.id).toBe('z');
  });

  it('embed without what every line needs (a space id) is a usage error before any line', async () => {
    const r = await runInProcess(
      ['--url', fixture.server.url, 'embed', '-m', 'ibm/slate-125m-english-rtrvr', '--batch', file(['"a"'])],
      { env: fixture.home.env },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/space_id or project_id/);
  });

  it("embed embeds one text per line; each result is that text's -o json result", async () => {
    const r = await runInProcess(
      [
        '--url',
        fixture.server.url,
        'embed',
        '-m',
        'ibm/slate-125m-english-rtrvr',
        '--batch',
        file(['"a river"', '{"input":"a lake","id":2,"parameters":{"truncate_input_tokens":3}}', '{"input":""}']),
      ],
      { env: { ...fixture.home.env, TEXTGEN_SPACE_ID: 'space-1' } },
    );
    expect(r.exitCode).toBe(4);
    const recs = records(r.stdout) as unknown as Array<{
      line: number;
      result?: { model: string; embeddings: Array<{ index: number; embedding: number[] }>; input_token_count: number };
      error?: unknown;
    }>;
    expect(Object.keys(recs[0]?.result ?? {})).toEqual(['model', 'dimensions', 'embeddings', 'input_token_count']);
    expect(recs[0]?.result?.embeddings[0]?.embedding).toHaveLength(768);
    expect(recs[0]?.result?.embeddings).toHaveLength(1);
    expect(recs[1]?.result?.embeddings[0]?.index).toBe(0);
    expect(recs[2]?.error).toMatchObject({ exit_code: 2, message: expect.stringMatching(/empty/) });
    const sent = fixture.server.requests.filter((q) => q.path === '/ml/v1/text/embeddings');
    expect(sent.map((q) => (q.json as { inputs: string[] }).inputs)).toEqual([['a river'], ['a lake']]);
  });
});

/** A pass-through proxy that records, for each request, how many were in flight when it arrived. */
async function countingProxy(target: string): Promise<{
  url: string;
  arrivals: Array<{ at: number; inFlight: number; status?: number }>;
  close(): Promise<void>;
}> {
  const arrivals: Array<{ at: number; inFlight: number; status?: number }> = [];
  let inFlight = 0;
  const t = new URL(target);
  const server: Server = createServer((req, res) => {
    inFlight++;
    const entry: { at: number; inFlight: number; status?: number } = { at: Date.now(), inFlight };
    arrivals.push(entry);
    const up = httpRequest(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers },
      (upRes) => {
        entry.status = upRes.statusCode;
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
        upRes.on('end', () => inFlight--);
      },
    );
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('adaptive slow-down on 429', () => {
  it('honours Retry-After for the whole batch, halves the concurrency, grows back, and completes with exit 0', async () => {
    const proxy = await countingProxy(fixture.server.url);
    try {
      fixture.server.faults.push(
        { kind: 'delay', ms: 40, times: 24 },
        { kind: 'status', status: 429, retryAfter: '1', times: 1 },
        { kind: 'delay', ms: 40, times: Number.POSITIVE_INFINITY },
      );
      const started = Date.now();
      const r = await tg(
        ['--batch', file(Array.from({ length: 80 }, (_, i) => `"p${i}"`)), '--concurrency', '8'],
        undefined,
        proxy.url,
      );
      expect(r.exitCode).toBe(0);
      expect(records(r.stdout)).toHaveLength(80);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      const gen = proxy.arrivals;
      // Each 429 is retried once, not hammered: 80 lines + 1 retry.
      expect(gen).toHaveLength(81);
      const throttled = gen.findIndex((a) => a.status === 429);
      expect(throttled).toBeGreaterThan(0);
      const before = gen.slice(0, throttled);
      expect(Math.max(...before.map((a) => a.inFlight))).toBe(8);
      const t429 = gen[throttled]!.at;
      // Nothing new starts while the Retry-After second runs (requests already sent still answer).
      const later = gen.slice(throttled + 1);
      const during = later.filter((a) => a.at > t429 + 300 && a.at < t429 + 950);
      expect(during).toEqual([]);
      // Right after the pause the in-flight limit is halved (4), growing by one per round of successes.
      const resumed = later.filter((a) => a.at >= t429 + 950).slice(0, 6);
      expect(Math.max(...resumed.map((a) => a.inFlight))).toBeLessThanOrEqual(5);
      expect(r.stderr).toMatch(/1 answer 429, concurrency lowered/);
    } finally {
      await proxy.close();
    }
  });
});

describe('a reader that goes away', () => {
  it('stops the batch quietly (textgen … --batch | head)', async () => {
    const stdout = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const stderr = new PassThrough();
    const err: Buffer[] = [];
    stderr.on('data', (b: Buffer) => err.push(b));
    const code = await main(
      [
        '--url',
        fixture.server.url,
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--batch',
        file(Array.from({ length: 3000 }, (_, i) => `"p${i}"`)),
      ],
      {
        env: { ...process.env, ...fixture.home.env, CI: 'true' },
        cwd: dir,
        stdin: Readable.from([]),
        stdout,
        stderr,
      },
    );
    expect(code).toBe(0);
    expect(Buffer.concat(err).toString('utf8')).not.toMatch(/error/);
    expect(generationRequests(fixture.server.requests).length).toBeLessThan(3000);
  });
});

describe('the progress line', () => {
  async function withTty(env: Record<string, string>): Promise<{ code: number; stderr: string; stdout: string }> {
    const stdout = new PassThrough();
    const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 100 });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    stdout.on('data', (b: Buffer) => out.push(b));
    stderr.on('data', (b: Buffer) => err.push(b));
    const base = { ...process.env };
    delete base.CI;
    const code = await main(
      [
        '--url',
        fixture.server.url,
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--batch',
        file(['"a"', '"b"']),
      ],
      {
        env: { ...base, ...fixture.home.env, ...env },
        cwd: dir,
        stdin: Readable.from([]),
        stdout,
        stderr,
      },
    );
    return { code, stderr: Buffer.concat(err).toString('utf8'), stdout: Buffer.concat(out).toString('utf8') };
  }

  it('is drawn on a terminal and erased at the end', async () => {
    const r = await withTty({});
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\r\u001b\[2Kbatch: \d+(\/2)? done · 0 failed/);
    expect(r.stdout).not.toContain('\u001b');
  });

  it('is never drawn with CI=true, even on a terminal', async () => {
    const r = await withTty({ CI: 'true' });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('\u001b[2K');
    expect(r.stderr).toMatch(/^batch: 2 lines processed/m);
  });
});
