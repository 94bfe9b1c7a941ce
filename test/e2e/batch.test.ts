import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';
import { generationRequests } from '../helpers/wire.js';

const fixture = useServer();
const dir = mkdtempSync(join(tmpdir(), 'textgen-batch-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Rec {
  line: number;
  id?: unknown;
  result?: { results: Array<{ generated_text: string }> };
  error?: { exit_code: number; message: string };
}
const parse = (text: string): Rec[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);

let files = 0;
function inputFile(n: number, blankEvery = 0): { path: string; lines: number[] } {
  const path = join(dir, `in-${++files}.jsonl`);
  const text: string[] = [];
  const lines: number[] = [];
  for (let i = 1; i <= n; i++) {
    if (blankEvery > 0 && i % blankEvery === 0) text.push('');
    else {
      text.push(JSON.stringify({ input: `prompt ${i}`, id: `id-${i}` }));
      lines.push(i);
    }
  }
  writeFileSync(path, `${text.join('\n')}\n`);
  return { path, lines };
}

const baseArgs = () => [
  '--url',
  fixture.server.url,
  'deployment',
  'text-generate',
  '--id-or-name',
  'demo',
  '--parameters-max-new-tokens',
  '3',
];

/** Resolves once the server has seen `n` generation requests: the batch is under way. */
async function serverSaw(n: number): Promise<void> {
  while (generationRequests(fixture.server.requests).length < n) await new Promise((r) => setTimeout(r, 5));
}

function startChild(args: string[]) {
  return execa('node', [BIN, ...args], {
    env: { ...fixture.home.env, CI: 'true', PATH: process.env.PATH ?? '' },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 30_000,
    stripFinalNewline: false,
  });
}

function expectInOrder(recs: Rec[], expected: number[]): void {
  expect(recs.map((r) => r.line)).toEqual(expected);
  for (const r of recs) {
    expect(r.id).toBe(`id-${r.line}`);
    expect(typeof r.result?.results[0]?.generated_text).toBe('string');
  }
}

describe('textgen … --batch (built CLI)', () => {
  it('under random per-request latency, 240 lines at concurrency 16 come out complete and strictly in input order', async () => {
    fixture.server.faults.push({ kind: 'delay', ms: 1, maxMs: 40, times: Number.POSITIVE_INFINITY });
    const { path, lines } = inputFile(240, 37);
    const r = await runBin([...baseArgs(), '--batch', path, '--concurrency', '16'], {
      env: fixture.home.env,
      timeout: 40_000,
    });
    expect(r.exitCode).toBe(0);
    expectInOrder(parse(r.stdout), lines);
    expect(generationRequests(fixture.server.requests)).toHaveLength(lines.length);
    expect(r.stderr).toMatch(/^batch: 234 lines processed, 234 succeeded, 0 failed, 0 skipped in/m);
    // CI=true and no terminal: no progress drawing.
    expect(r.stderr).not.toContain('\u001b');
  }, 60_000);

  it('reads stdin with --batch -', async () => {
    const r = await runBin([...baseArgs(), '--batch', '-'], {
      env: fixture.home.env,
      input: '"a"\n{"input":"b","id":"x"}\n',
    });
    expect(r.exitCode).toBe(0);
    expect(parse(r.stdout).map((x) => [x.line, x.id])).toEqual([
      [1, undefined],
      [2, 'x'],
    ]);
  });

  it('Ctrl-C: in-flight requests are aborted, every finished record before them is written intact, exit 130', async () => {
    fixture.server.faults.push({ kind: 'delay', ms: 5, maxMs: 30, times: Number.POSITIVE_INFINITY });
    const { path } = inputFile(2000);
    const child = startChild([...baseArgs(), '--batch', path, '--concurrency', '8']);
    await serverSaw(40);
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(130);
    const recs = parse(String(r.stdout));
    expect(recs.length).toBeGreaterThan(0);
    expect(recs.length).toBeLessThan(2000);
    expectInOrder(
      recs,
      recs.map((_, i) => i + 1),
    );
    expect(String(r.stdout).endsWith('\n')).toBe(true);
    expect(String(r.stderr)).toMatch(/batch interrupted/);
  }, 60_000);

  it('resume after an interrupted run and a truncated last line: exactly one record per line, in order, none lost or duplicated', async () => {
    fixture.server.faults.push({ kind: 'delay', ms: 5, maxMs: 30, times: Number.POSITIVE_INFINITY });
    const { path, lines } = inputFile(400, 50);
    const out = join(dir, 'resumed.jsonl');
    const args = [...baseArgs(), '--batch', path, '--concurrency', '8', '--resume', out];

    const first = startChild(args);
    await serverSaw(60);
    first.kill('SIGINT');
    const r1 = await first;
    expect(r1.exitCode).toBe(130);
    expect(String(r1.stdout)).toBe('');
    const partial = parse(readFileSync(out, 'utf8'));
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(lines.length);
    expectInOrder(partial, lines.slice(0, partial.length));

    // A run killed harder leaves a half-written last line behind: cut the file inside its last record.
    const text = readFileSync(out, 'utf8');
    writeFileSync(out, text.slice(0, text.length - 25));
    const before = generationRequests(fixture.server.requests).length;

    const r2 = await runBin(args, { env: fixture.home.env, timeout: 40_000 });
    expect(r2.exitCode).toBe(0);
    expect(r2.stdout).toBe('');
    const final = parse(readFileSync(out, 'utf8'));
    expectInOrder(final, lines);
    // Only the lines without a whole successful record were sent again.
    expect(generationRequests(fixture.server.requests).length - before).toBe(lines.length - partial.length + 1);
    expect(r2.stderr).toMatch(new RegExp(`${partial.length - 1} skipped`));
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    // Once complete, resuming again sends nothing and keeps the file as it is.
    const done = readFileSync(out, 'utf8');
    const r3 = await runBin(args, { env: fixture.home.env });
    expect(r3.exitCode).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(done);
  }, 60_000);

  it('--fail-fast and per-line errors through the binary', async () => {
    const path = join(dir, 'mixed.jsonl');
    writeFileSync(path, ['"a"', 'not json', '"c"', '{"input":"d","parameters":{"temperature":9}}', '"e"'].join('\n'));
    const all = await runBin([...baseArgs(), '--batch', path, '--concurrency', '2'], { env: fixture.home.env });
    expect(all.exitCode).toBe(4);
    expect(parse(all.stdout).map((x) => (x.error ? x.error.exit_code : 0))).toEqual([0, 2, 0, 2, 0]);
    expect(all.stderr).toMatch(/5 lines processed, 3 succeeded, 2 failed/);
    const ff = await runBin([...baseArgs(), '--batch', path, '--fail-fast'], { env: fixture.home.env });
    expect(ff.exitCode).toBe(2);
    expect(parse(ff.stdout).map((x) => x.line)).toEqual([1, 2]);
  });

  it('an authentication failure stops the batch with exit 3', async () => {
    fixture.server.faults.push({ kind: 'status', status: 403, times: Number.POSITIVE_INFINITY });
    const { path } = inputFile(100);
    const r = await runBin([...baseArgs(), '--batch', path], { env: fixture.home.env });
    expect(r.exitCode).toBe(3);
    expect(generationRequests(fixture.server.requests).length).toBeLessThanOrEqual(8);
  });

  it('complete --batch and embed --batch through the binary', async () => {
    const path = join(dir, 'texts.jsonl');
    writeFileSync(path, '"a river"\n{"input":"a lake","id":"l"}\n');
    const env = { ...fixture.home.env, TEXTGEN_SPACE_ID: 'space-1' };
    const c = await runBin(
      [
        '--url',
        fixture.server.url,
        'complete',
        '-m',
        'ibm/granite-13b-instruct-v2',
        '--max-tokens',
        '2',
        '--batch',
        path,
      ],
      { env },
    );
    expect(c.exitCode).toBe(0);
    expect(parse(c.stdout).map((x) => x.line)).toEqual([1, 2]);
    const e = await runBin(
      [
        '--url',
        fixture.server.url,
        'embed',
        '-m',
        'ibm/slate-125m-english-rtrvr',
        '--batch',
        path,
        '-j',
        'embeddings[0].index',
      ],
      { env },
    );
    expect(e.exitCode).toBe(0);
    expect(e.stdout).toBe('{"line":1,"result":0}\n{"line":2,"id":"l","result":0}\n');
  });
});
