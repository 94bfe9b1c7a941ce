/**
 * `batch submit|wait|results|cancel` through the built CLI against `textgen serve`'s batch services (the emulated
 * OpenAI and Azure OpenAI Batch APIs, time compressed by batchSpeed): a 50 001-line file split at OpenAI's 50 000-line
 * limit, a kill between submit and results, and the batch-* fault switches (partial failures, expiry, a cancel
 * midway). Every time: 0 lines lost, 0 duplicated, records in input order.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/emulator/core/index.js';
import { parseFaultSpec } from '../../src/emulator/core/fault-spec.js';
import type { RunningServer } from '../../src/emulator/core/types.js';
import { BIN, baseEnv, makeHome, runBin } from '../helpers/run-cli.js';

const home = makeHome();
const dir = mkdtempSync(join(tmpdir(), 'textgen-provider-batch-serve-'));
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ batchSpeed: 86_400 });
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  writeFileSync(
    join(home.dir, 'config', 'textgen', 'config.yaml'),
    [
      'profiles:',
      `  oa: { provider: openai, url: "${server.url}", auth: { type: none } }`,
      `  az: { provider: azure-openai, url: "${server.url}", auth: { type: none } }`,
      `  wx: { provider: watsonx, url: "${server.url}", auth: { type: none } }`,
      `  azv1: { provider: azure-openai, url: "${server.url}", api_version: v1, auth: { type: none } }`,
      '',
    ].join('\n'),
  );
});
afterEach(() => {
  server.faults.length = 0;
});
afterAll(async () => {
  await server.close();
  home.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], timeout = 120_000) =>
  runBin(['--retries', '0', ...args], { env: home.env, cwd: dir, timeout });

function writePrompts(name: string, n: number): void {
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ input: `prompt ${i + 1}`, id: `q${i + 1}` }));
  writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
}

/** The records are one per input line, in input order, each carrying its own line's id. */
function checkRecords(text: string, n: number): Array<{ line: number; result?: unknown; error?: any }> {
  const recs = text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { line: number; id: string; result?: unknown; error?: unknown });
  expect(recs.length).toBe(n);
  const wrong = recs.findIndex((r, i) => r.line !== i + 1 || r.id !== `q${i + 1}`);
  expect(wrong).toBe(-1);
  return recs;
}

describe('batch at the provider, against serve', () => {
  it('a 50 001-line file is split at the 50 000-line limit; results are 50 001 records in input order', async () => {
    writePrompts('big.jsonl', 50_001);
    // Long timeouts: 50 001 lines are checked, uploaded and run by the emulator; a loaded machine takes minutes.
    const sub = await cli(['--profile', 'oa', 'batch', 'submit', 'big.jsonl', '-m', 'gpt-3.5-turbo-instruct'], 600_000);
    expect(sub.stderr).not.toMatch(/^error/m);
    expect(sub.exitCode).toBe(0);
    expect(sub.stdout.trim().split('\n')).toHaveLength(2);
    expect(sub.stderr).toMatch(/lines 1–50000, 50000 requests/);
    const res = await cli(
      [
        '--profile',
        'oa',
        'batch',
        'results',
        '--state',
        'big.jsonl.batch.json',
        '--out',
        'big.out.jsonl',
        '--interval',
        '1',
      ],
      300_000,
    );
    expect(res.stderr).not.toMatch(/^error/m);
    expect(res.exitCode).toBe(0);
    const recs = checkRecords(readFileSync(join(dir, 'big.out.jsonl'), 'utf8'), 50_001);
    expect(recs.every((r) => r.result !== undefined)).toBe(true);
  }, 1_600_000);

  it('killed while waiting after submit: results --state carries on, nothing lost or doubled', async () => {
    writePrompts('kill.jsonl', 300);
    const child = execa(
      'node',
      [
        BIN,
        '--retries',
        '0',
        '--profile',
        'oa',
        'batch',
        'submit',
        'kill.jsonl',
        '-m',
        'm',
        '--wait',
        '--interval',
        '1',
      ],
      {
        env: { ...baseEnv(), CI: 'true', ...home.env },
        extendEnv: false,
        cwd: dir,
        reject: false,
        stdin: 'ignore',
      },
    );
    // Killed once the batch exists (its line on stderr), before any record is written.
    await new Promise<void>((done) => {
      let seen = '';
      child.stderr!.on('data', (b: Buffer) => {
        seen += b.toString();
        if (/is batch /.test(seen)) done();
      });
    });
    child.kill('SIGKILL');
    const killed = await child;
    expect(killed.signal).toBe('SIGKILL');
    const again = await cli(['--profile', 'oa', 'batch', 'submit', 'kill.jsonl', '-m', 'm']);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/already submitted/);
    const res = await cli([
      '--profile',
      'oa',
      'batch',
      'results',
      '--state',
      'kill.jsonl.batch.json',
      '--interval',
      '1',
    ]);
    expect(res.exitCode).toBe(0);
    checkRecords(res.stdout, 300);
  });

  it('partial failures (batch-partial): error records in their lines, exit 4', async () => {
    server.faults.push(...parseFaultSpec('batch-partial:every=5'));
    writePrompts('partial.jsonl', 100);
    const r = await cli([
      '--profile',
      'oa',
      'batch',
      'submit',
      'partial.jsonl',
      '-m',
      'm',
      '--wait',
      '--interval',
      '1',
    ]);
    expect(r.exitCode).toBe(4);
    const recs = checkRecords(r.stdout, 100);
    const failed = recs.filter((x) => x.error !== undefined).map((x) => x.line);
    expect(failed).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 5));
    expect(r.stderr).toMatch(/batch results: 100 records, 80 succeeded, 20 failed/);
  });

  it('an expiry (batch-expire): the lines that never ran are error records, none lost', async () => {
    server.faults.push(...parseFaultSpec('batch-expire:after=30'));
    writePrompts('expire.jsonl', 100);
    const r = await cli(['--profile', 'oa', 'batch', 'submit', 'expire.jsonl', '-m', 'm', '--wait', '--interval', '1']);
    expect(r.exitCode).toBe(4);
    const recs = checkRecords(r.stdout, 100);
    // The service runs lines in its own order: which 30 ran is its business, that the other 70 are errors is ours.
    expect(recs.filter((x) => x.result !== undefined)).toHaveLength(30);
    expect(recs.filter((x) => x.error !== undefined)).toHaveLength(70);
  });

  it('cancelled midway (batch cancel): finished lines kept, the rest error records', async () => {
    server.faults.push(...parseFaultSpec('batch-cancel:after=40'));
    writePrompts('cancel.jsonl', 100);
    const r = await cli([
      '--profile',
      'az',
      'batch',
      'submit',
      'cancel.jsonl',
      '-m',
      'gpt-35-turbo-instruct',
      '--wait',
      '--interval',
      '1',
    ]);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.exitCode).toBe(4);
    const recs = checkRecords(r.stdout, 100);
    expect(recs.filter((x) => x.result !== undefined)).toHaveLength(40);
  });

  it('batch cancel: completed work is kept and fetched by results', async () => {
    writePrompts('usercancel.jsonl', 2000);
    const sub = await cli(['--profile', 'oa', 'batch', 'submit', 'usercancel.jsonl', '-m', 'm']);
    expect(sub.exitCode).toBe(0);
    const c = await cli(['--profile', 'oa', 'batch', 'cancel', '--state', 'usercancel.jsonl.batch.json']);
    expect(c.exitCode).toBe(0);
    expect(c.stdout).toMatch(/cancel/);
    const r = await cli([
      '--profile',
      'oa',
      'batch',
      'results',
      '--state',
      'usercancel.jsonl.batch.json',
      '--interval',
      '1',
    ]);
    expect([0, 4]).toContain(r.exitCode);
    checkRecords(r.stdout, 2000);
  });

  it('watsonx: a space from --space-id, recorded for results; generation and chat lines', async () => {
    writePrompts('wx.jsonl', 50);
    const r = await cli([
      '--profile',
      'wx',
      'batch',
      'submit',
      'wx.jsonl',
      '-m',
      'ibm/granite-13b-instruct-v2',
      '--space-id',
      'sp-1',
    ]);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.exitCode).toBe(0);
    const res = await cli(['--profile', 'wx', 'batch', 'results', '--state', 'wx.jsonl.batch.json', '--interval', '1']);
    expect(res.stderr).not.toMatch(/^error/m);
    expect(res.exitCode).toBe(0);
    const recs = checkRecords(res.stdout, 50);
    expect((recs[0]!.result as any).results[0].generated_text).toEqual(expect.any(String));
    writeFileSync(
      join(dir, 'wxchat.jsonl'),
      '{"messages": [{"role": "user", "content": "Name a river."}], "id": "q1"}\n',
    );
    const chat = await cli([
      '--profile',
      'wx',
      'batch',
      'submit',
      'wxchat.jsonl',
      '--endpoint',
      'chat',
      '-m',
      'ibm/granite-3-8b-instruct',
      '--project-id',
      'pr-1',
      '--wait',
      '--interval',
      '1',
    ]);
    expect(chat.stderr).not.toMatch(/^error/m);
    expect(chat.exitCode).toBe(0);
    expect((checkRecords(chat.stdout, 1)[0]!.result as any).choices[0].message.role).toBe('assistant');
  });

  it('Azure v1 (api_version: v1): /openai/v1/files and /openai/v1/batches, lines on /v1/chat/completions', async () => {
    writeFileSync(
      join(dir, 'azv1.jsonl'),
      '{"messages": [{"role": "user", "content": "Name a river."}], "id": "q1"}\n',
    );
    const r = await cli([
      '--profile',
      'azv1',
      'batch',
      'submit',
      'azv1.jsonl',
      '--endpoint',
      'chat',
      '-m',
      'gpt-4o',
      '--wait',
      '--interval',
      '1',
    ]);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.exitCode).toBe(0);
    expect((checkRecords(r.stdout, 1)[0]!.result as any).choices[0].message.role).toBe('assistant');
  });
});
