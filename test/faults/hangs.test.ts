/**
 * Hangs no option stopped (issue 16, item 4), against the built CLI (`npm run build` first): servers that keep the
 * connection busy without ever finishing — keep-alive comments instead of events, a JSON answer that trickles
 * whitespace, a stream that never ends — and a batch line of 64 MB. Each must end within a bound, with the documented
 * exit code and one error line; the suite ends with one line of figures.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeHome, runBin } from '../helpers/run-cli.js';

const home = makeHome();
const dir = mkdtempSync(join(tmpdir(), 'textgen-hangs-'));
const figures = { cases: 0, ended: 0, slowest: 0 };
afterAll(() => {
  home.cleanup();
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `hangs: ${figures.cases} never-ending servers and inputs, ${figures.ended} ended within their bound, slowest ${(figures.slowest / 1000).toFixed(1)} s, ${figures.cases - figures.ended} hangs`,
  );
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

/** A server whose every answer is `answer(res)`; it keeps going until the client leaves. */
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

/** Writes `chunk` every `ms` until the client goes away. */
function forever(res: ServerResponse, chunk: string, ms: number): void {
  const timer = setInterval(() => res.write(chunk), ms);
  res.on('close', () => clearInterval(timer));
}

const keepAlives = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
  forever(res, ': keep-alive\n\n', 100);
};

const WX = (url: string) => ['--provider', 'watsonx', '--url', url, '--token', 't', '--retries', '0'];
const TG = ['deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hi'];

async function bounded(args: string[], boundMs: number) {
  figures.cases++;
  const started = Date.now();
  const r = await runBin(args, { env: home.env, timeout: boundMs + 15_000 });
  const took = Date.now() - started;
  figures.slowest = Math.max(figures.slowest, took);
  if (took <= boundMs) figures.ended++;
  expect(took, `took ${took} ms; stderr: ${r.stderr}`).toBeLessThanOrEqual(boundMs);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  return r;
}

describe('hangs no option stopped end now (built CLI)', () => {
  it('a watsonx stream of keep-alive comments only, with --timeout 2000 --parameters-time-limit 2000 → exit 6 after --timeout', async () => {
    const url = await serve(keepAlives);
    const r = await bounded(
      [...WX(url), ...TG, '--stream', '--timeout', '2000', '--parameters-time-limit', '2000'],
      8_000,
    );
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(
      /^error: watsonx stream broke off: watsonx sent nothing for 2 s but keep-alive comments, no event \(--timeout\)$/m,
    );
    expect(r.stdout).toBe('');
  });

  it('keep-alive comments with a long --timeout: the client keeps the time limit watsonx did not (time_limit, exit 0, a warning)', async () => {
    const url = await serve(keepAlives);
    const r = await bounded(
      [...WX(url), ...TG, '--stream', '--timeout', '60000', '--parameters-time-limit', '1000', '-o', 'json'],
      12_000,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { results: Array<{ stop_reason: string }> }).results[0]!.stop_reason).toBe(
      'time_limit',
    );
    expect(r.stderr).toMatch(/^warning: watsonx did not stop at its time limit \(1000 ms\); textgen stopped waiting/m);
  });

  it('a JSON answer that trickles whitespace for ever → exit 5 after twice --timeout', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"results":');
      forever(res, ' ', 50);
    });
    const r = await bounded([...WX(url), ...TG, '--timeout', '1500'], 8_000);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(
      /^error: .*did not finish sending its answer within 3 s of its headers \(twice --timeout\)$/m,
    );
  });

  it('--max-time bounds a stream that goes on for ever: the text so far is kept, exit 6', async () => {
    let n = 0;
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(
        () =>
          res.write(
            `id: ${++n}\nevent: message\ndata: {"model_id":"m","results":[{"generated_text":"word ","generated_token_count":${n},"input_token_count":1,"stop_reason":"not_finished"}]}\n\n`,
          ),
        100,
      );
      res.on('close', () => clearInterval(timer));
    });
    const r = await bounded([...WX(url), ...TG, '--stream', '--max-time', '1500'], 8_000);
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toMatch(/^(word )+\n?$/);
    expect(r.stderr).toMatch(/^error: gave up after 1\.5 s \(--max-time\); the output so far was written$/m);
  });

  it('--max-time bounds the retries too: a 503 asking to come back in 30 s → exit 5 when the time is up', async () => {
    const url = await serve((res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '30' });
      res.end('{"errors":[{"code":"service_unavailable","message":"busy"}],"trace":"t","status_code":503}');
    });
    const r = await bounded(
      [...WX(url).filter((a) => a !== '--retries' && a !== '0'), ...TG, '--retries', '3', '--max-time', '1200'],
      8_000,
    );
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/^error: gave up after 1\.2 s \(--max-time\) without a complete answer$/m);
  });

  it.each([['0'], ['soon'], ['99999999999999']])('--max-time %s is a usage error', async (value) => {
    const r = await runBin([...WX('http://127.0.0.1:9'), ...TG, '--max-time', value], { env: home.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: --max-time must be a whole number of milliseconds from 1 to 2147483647/m);
  });

  it('a batch line of 64 MB is one error record (over the 16 MiB line cap); the lines around it run, in linear time', async () => {
    const url = await serve((res) => {
      const text =
        '{"model_id":"m","results":[{"generated_text":"ok","generated_token_count":1,"input_token_count":1,"stop_reason":"eos_token"}]}';
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
      res.end(text);
    });
    const input = join(dir, 'huge-line.jsonl');
    const fd = openSync(input, 'w');
    writeSync(fd, '"first"\n"');
    const block = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 64; i++) writeSync(fd, block);
    writeSync(fd, '"\n"third"\n');
    closeSync(fd);
    const r = await bounded(
      [...WX(url), 'deployment', 'text-generate', '--id-or-name', 'demo', '--batch', input],
      15_000,
    );
    expect(r.exitCode).toBe(4);
    const records = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { line: number; result?: unknown; error?: { exit_code: number; message: string } });
    expect(records.map((x) => [x.line, x.error?.exit_code ?? 0])).toEqual([
      [1, 0],
      [2, 2],
      [3, 0],
    ]);
    expect(records[1]!.error!.message).toMatch(/the line is longer than 16 MiB/);
  }, 60_000);
});

describe('a long Retry-After is said on stderr, not waited out in silence (built CLI)', () => {
  /** 429 with Retry-After: 5 for the first `busy` requests, then answers. */
  async function busyFirst(busy: number): Promise<string> {
    let n = 0;
    return serve((res) => {
      if (++n <= busy) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '5' });
        res.end('{"errors":[{"code":"too_many_requests","message":"slow down"}],"trace":"t","status_code":429}');
        return;
      }
      const text =
        '{"model_id":"m","results":[{"generated_text":"ok","generated_token_count":1,"input_token_count":1,"stop_reason":"eos_token"}]}';
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
      res.end(text);
    });
  }

  it('one request: a note says what it waits for and how long', async () => {
    const url = await busyFirst(1);
    const r = await bounded(['--provider', 'watsonx', '--url', url, '--token', 't', ...TG], 12_000);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^note: watsonx answered HTTP 429 and asked to wait; retrying in 5 s \(attempt 2 of 3; --retries 0 gives up at once\)$/m,
    );
  });

  it('a batch: one note for the pause, not one per line', async () => {
    const url = await busyFirst(4);
    const r = await runBin(
      [
        '--provider',
        'watsonx',
        '--url',
        url,
        '--token',
        't',
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--batch',
        '-',
        '--concurrency',
        '4',
      ],
      { env: home.env, input: '"a"\n"b"\n"c"\n"d"\n', timeout: 20_000 },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(
      r.stderr.match(/^note: batch: the service answered HTTP 429 and asked to wait; no new request starts for 5 s$/gm),
    ).toHaveLength(1);
  });
});
