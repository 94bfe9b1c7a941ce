/**
 * Batch progress under the signals that really end batches (issue 16, item 3): CI cancellation, `timeout` and
 * `docker stop` send SIGTERM, a closed terminal SIGHUP, an OOM killer or `kill -9` SIGKILL. Against the built CLI
 * (`npm run build` first): records reach the --resume file as they complete, SIGTERM/SIGHUP end the batch like
 * Ctrl-C (summary, exit 143/129), SIGKILL loses at most the line in flight, no temporary file is ever left, and the
 * next run finishes the file: one record per line, in order. The suite ends with one line of figures.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, makeHome, runBin } from '../helpers/run-cli.js';
import { startRecordingServer, type RecordingServer } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'textgen-kill-'));
const home = makeHome();
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  home.cleanup();
  console.log(
    `kills: ${tally.runs} batch runs ended by a signal (${[...tally.signals].join(', ')}), ${tally.kept} records kept, ${tally.lost} finished lines lost, ${tally.temps} temporary files left`,
  );
});

const tally = { runs: 0, signals: new Set<string>(), kept: 0, lost: 0, temps: 0 };

let rec: RecordingServer;
beforeEach(async () => {
  rec = await startRecordingServer();
  // Every answer takes a little while, so a signal always finds lines in flight.
  rec.server.faults.push({ kind: 'delay', ms: 4, maxMs: 12, times: Number.POSITIVE_INFINITY });
});
afterEach(async () => {
  await rec.server.close();
});

let files = 0;
function input(n: number): string {
  const path = join(dir, `in-${++files}.jsonl`);
  writeFileSync(
    path,
    `${Array.from({ length: n }, (_, i) => JSON.stringify({ input: `prompt ${i + 1}`, id: `id-${i + 1}` })).join('\n')}\n`,
  );
  return path;
}

const args = (source: string, out: string | undefined, concurrency: number) => [
  '--url',
  rec.server.url,
  '--retries',
  '0',
  'deployment',
  'text-generate',
  '--id-or-name',
  'demo',
  '--parameters-max-new-tokens',
  '2',
  '--batch',
  source,
  '--concurrency',
  String(concurrency),
  ...(out ? ['--resume', out] : []),
];

function start(a: string[]) {
  return execa('node', [BIN, ...a], {
    env: { ...baseEnv(), ...home.env, CI: 'true' },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 30_000,
    stripFinalNewline: false,
  });
}

/** Resolves once the server has finished answering `n` generation requests: the batch is well under way. */
async function answered(n: number): Promise<void> {
  while (rec.wires.filter((w) => w.endedAt !== undefined).length < n) await new Promise((r) => setTimeout(r, 3));
}

interface Rec {
  line: number;
  id?: string;
  result?: unknown;
  error?: unknown;
}

/** The records of a file; a last line cut by SIGKILL in the middle of a write is not a record. */
function recordsIn(path: string): Rec[] {
  const out: Rec[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    try {
      out.push(JSON.parse(line) as Rec);
    } catch {
      // A half-written last line.
    }
  }
  return out;
}

const temps = () => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

function expectOnePerLine(records: Rec[], n: number): void {
  expect(records.map((r) => r.line)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  for (const r of records) {
    expect(r.id).toBe(`id-${r.line}`);
    expect(r.result).toBeDefined();
  }
}

/** Runs the same command again to the end: the file is then complete, and only the missing lines were sent. */
async function finish(source: string, out: string, n: number, before: number): Promise<void> {
  const sentBefore = rec.wires.length;
  const r = await runBin(args(source, out, 4), { env: home.env, timeout: 30_000 });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stderr).toMatch(new RegExp(`${before} skipped`));
  expect(rec.wires.length - sentBefore).toBe(n - before);
  expectOnePerLine(recordsIn(out), n);
  expect(temps()).toEqual([]);
}

describe('a batch ended by a signal keeps its progress (built CLI)', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
    ['SIGINT', 130],
  ] as const)(
    '%s with --resume: records already in the file, summary, exit %i, no temporary file; the next run finishes it',
    async (signal, code) => {
      const source = input(300);
      const out = join(dir, `${signal}.jsonl`);
      const child = start(args(source, out, 8));
      await answered(40);
      child.kill(signal);
      const r = await child;
      tally.runs++;
      tally.signals.add(signal);
      expect(r.exitCode, String(r.stderr)).toBe(code);
      expect(String(r.stderr)).toMatch(
        /^batch: \d+ lines processed, .*\nbatch interrupted: every record before the first unfinished line was written/m,
      );
      expect(temps()).toEqual([]);
      const kept = recordsIn(out);
      expect(kept.length).toBeGreaterThanOrEqual(30);
      expectOnePerLine(kept, kept.length);
      tally.kept += kept.length;
      // Every line the server answered before the signal whose earlier lines were answered too is in the file.
      await finish(source, out, 300, kept.length);
    },
    60_000,
  );

  it('SIGTERM without --resume: the finished records are on stdout, exit 143', async () => {
    const source = input(300);
    const child = start(args(source, undefined, 8));
    await answered(40);
    child.kill('SIGTERM');
    const r = await child;
    tally.runs++;
    tally.signals.add('SIGTERM');
    expect(r.exitCode).toBe(143);
    const kept = String(r.stdout)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Rec);
    expect(kept.length).toBeGreaterThanOrEqual(30);
    expectOnePerLine(kept, kept.length);
    expect(String(r.stderr)).toMatch(/batch interrupted/);
  }, 60_000);

  it('SIGKILL five times in a row: each time the file holds every answered line but the one in flight, no temporary file is left, and the next run finishes it', async () => {
    const n = 400;
    const source = input(n);
    const out = join(dir, 'sigkill.jsonl');
    let before = 0;
    for (let round = 1; round <= 5; round++) {
      const child = start(args(source, out, 1));
      const sent = rec.wires.length;
      await answered(sent + 25);
      // One line at a time: what the server had finished answering when the signal came, minus the one whose
      // answer the CLI may not have read yet, must be in the file.
      const finished = rec.wires.slice(sent).filter((w) => w.endedAt !== undefined).length;
      child.kill('SIGKILL');
      await child;
      tally.runs++;
      tally.signals.add('SIGKILL');
      const kept = recordsIn(out);
      const added = kept.length - before;
      tally.lost += Math.max(0, finished - 1 - added);
      expect(added, `round ${round}: ${finished} lines answered, ${added} records added`).toBeGreaterThanOrEqual(
        finished - 1,
      );
      expect(temps()).toEqual([]);
      before = new Set(kept.filter((r) => r.result !== undefined).map((r) => r.line)).size;
      tally.kept += added;
    }
    await finish(source, out, n, before);
    tally.temps += temps().length;
  }, 90_000);

  it('a --resume file with records for lines beyond the input is refused before anything is sent (exit 2)', async () => {
    const source = input(10);
    const out = join(dir, 'other-input.jsonl');
    writeFileSync(out, '{"line":1,"result":{}}\n{"line":57,"result":{}}\n');
    const r = await runBin(args(source, out, 4), { env: home.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --resume: .*other-input\.jsonl holds a record for line 57, but .*in-\d+\.jsonl has 10 lines; it is the output of another input$/m,
    );
    expect(rec.wires.length).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('{"line":1,"result":{}}\n{"line":57,"result":{}}\n');
  });

  it('the same from stdin: found out when the input ends, exit 2', async () => {
    const out = join(dir, 'other-stdin.jsonl');
    writeFileSync(out, '{"line":9,"result":{}}\n');
    const r = await runBin(args('-', out, 4), { env: home.env, input: '"a"\n"b"\n' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/holds a record for line 9, but stdin has 2 lines/);
  });
});
