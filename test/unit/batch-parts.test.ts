import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { inShard, parseBatchSettings, parseShard } from '../../src/options/batch-settings.js';
import { parseBatchLine, lineIdOf } from '../../src/batch/batch-line.js';
import { countLines, readLines } from '../../src/batch/line-reader.js';
import { LineBitmap } from '../../src/batch/line-bitmap.js';
import { readDoneLines, readResumeState, ResumeFileSink } from '../../src/batch/resume.js';
import { renderProgress } from '../../src/batch/progress.js';
import { UsageError } from '../../src/contract/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'textgen-batch-parts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('batch flags', () => {
  it.each([
    [{ batch: 'in.jsonl' }, { source: 'in.jsonl', concurrency: 4, failFast: false }],
    [
      { batch: '-', concurrency: '64', failFast: true as const },
      { source: '-', concurrency: 64, failFast: true },
    ],
    [
      { batch: 'a', resume: 'out.jsonl', shard: '2/3', failFast: 'false' },
      { source: 'a', concurrency: 4, failFast: false, resume: 'out.jsonl', shard: { index: 2, count: 3 } },
    ],
  ])('%j parses to %j', (options, expected) => {
    expect(parseBatchSettings(options)).toEqual(expected);
  });

  it('no --batch and no batch flag: not a batch', () => {
    expect(parseBatchSettings({})).toBeUndefined();
  });

  it.each([
    [{ batch: 'a', concurrency: '0' }, /--concurrency must be an integer from 1 to 1024, got "0"/],
    [{ batch: 'a', concurrency: '1025' }, /--concurrency must be an integer from 1 to 1024/],
    [{ batch: 'a', concurrency: 'x' }, /--concurrency/],
    [{ batch: 'a', shard: '4/3' }, /--shard must be K\/N with 1 ≤ K ≤ N/],
    [{ batch: 'a', shard: '0/3' }, /--shard/],
    [{ batch: 'a', shard: '1' }, /--shard/],
    [{ batch: 'a', resume: 'a' }, /must not be the --batch input/],
    [{ batch: 'a', failFast: 'maybe' }, /--fail-fast must be true or false/],
    [{ concurrency: '8' }, /--concurrency works only with --batch/],
    [{ shard: '1/2', resume: 'x' }, /--resume, --shard work only with --batch/],
  ])('%j is a usage error', (options, message) => {
    expect(() => parseBatchSettings(options)).toThrow(UsageError);
    expect(() => parseBatchSettings(options)).toThrow(message);
  });

  it('N shards cover every line exactly once', () => {
    for (const n of [1, 2, 3, 7]) {
      for (let line = 1; line <= 50; line++) {
        const owners = Array.from({ length: n }, (_, k) => k + 1).filter((k) => inShard(line, parseShard(`${k}/${n}`)));
        expect(owners).toEqual([((line - 1) % n) + 1]);
      }
    }
  });
});

describe('a batch line', () => {
  it.each([
    ['"just text"', { input: 'just text' }],
    ['{"input":"hi"}', { input: 'hi' }],
    [
      '{"input":"hi","id":"a-1","parameters":{"max_new_tokens":5}}',
      { input: 'hi', idJson: '"a-1"', parameters: { max_new_tokens: 5 } },
    ],
    ['{"id":7,"input":"x"}', { input: 'x', idJson: '7' }],
  ])('%s is read', (text, expected) => {
    expect(parseBatchLine(text)).toEqual(expected);
  });

  it.each([
    ['{"input":', /the line is not JSON/],
    ['42', /a line must be a JSON object .* got number/],
    ['["a"]', /got an array/],
    ['{"input":"x","paramters":{}}', /unknown field "paramters"/],
    ['{"id":"q"}', /no "input"/],
    ['{"input":"x","parameters":[1]}', /"parameters" must be a JSON object/],
    ['{"input":"x","id":{"a":1}}', /"id" must be a string or a number/],
  ])('%s is a usage error', (text, message) => {
    expect(() => parseBatchLine(text)).toThrow(message);
  });

  it('an error after the id was read still carries the id', () => {
    try {
      parseBatchLine('{"input":"x","id":"keep","extra":1}');
      expect.unreachable();
    } catch (e) {
      expect(lineIdOf(e)).toBe('"keep"');
    }
  });
});

describe('reading lines', () => {
  it('splits at LF, drops CR, joins lines and UTF-8 characters split across chunks, keeps an unterminated last line', async () => {
    const bytes = Buffer.from('ab\r\ncd\n\nünï\ncödé\nlast', 'utf8');
    const chunks = [];
    for (let i = 0; i < bytes.length; i += 3) chunks.push(bytes.subarray(i, i + 3));
    const lines: Array<string | undefined> = [];
    for await (const l of readLines(Readable.from(chunks))) lines.push(l);
    expect(lines).toEqual(['ab', 'cd', '', 'ünï', 'cödé', 'last']);
  });

  it('reads a line far longer than its chunks in linear time, and one over the cap as undefined without keeping it', async () => {
    const long = 'x'.repeat(3_000_000);
    const chunks = [
      Buffer.from('a\n'),
      ...Array.from({ length: 3_000 }, () => Buffer.from('x'.repeat(1_000))),
      Buffer.from('\nb\n'),
    ];
    const lines: Array<string | undefined> = [];
    for await (const l of readLines(Readable.from(chunks))) lines.push(l);
    expect(lines).toEqual(['a', long, 'b']);
    const capped: Array<string | undefined> = [];
    for await (const l of readLines(Readable.from(chunks), 2_000_000)) capped.push(l);
    expect(capped).toEqual(['a', undefined, 'b']);
  });

  it.each([
    ['a\nb\n', 2],
    ['a\nb', 2],
    ['', 0],
    ['\n\n\n', 3],
  ])('counts the lines of %j as %i', async (text, n) => {
    const path = join(dir, `count-${n}-${text.length}.txt`);
    writeFileSync(path, text);
    expect(await countLines(path)).toBe(n);
  });
});

describe('the done-line bitmap', () => {
  it('holds line numbers far apart and counts them once', () => {
    const b = new LineBitmap();
    for (const n of [1, 2, 9, 1_000_000, 2]) b.add(n);
    expect([1, 2, 9, 1_000_000].every((n) => b.has(n))).toBe(true);
    expect(b.has(3)).toBe(false);
    expect(b.has(5_000_000)).toBe(false);
    expect(b.size).toBe(4);
  });
});

describe('resuming', () => {
  const rec = (line: number, ok: boolean) =>
    ok ? `{"line":${line},"result":{"v":${line}}}` : `{"line":${line},"error":{"exit_code":4,"message":"x"}}`;

  it('marks the successful lines of this shard; a truncated last line is ignored', async () => {
    const path = join(dir, 'done.jsonl');
    writeFileSync(path, `${rec(1, true)}\n${rec(2, false)}\n${rec(3, true)}\n${rec(4, true).slice(0, 12)}`);
    const done = await readDoneLines(path, undefined);
    expect([1, 2, 3, 4].map((n) => done.has(n))).toEqual([true, false, true, false]);
    const shard = await readDoneLines(path, { index: 1, count: 2 });
    expect([1, 3].map((n) => shard.has(n))).toEqual([true, true]);
  });

  it('a missing output file means nothing is done yet', async () => {
    expect((await readDoneLines(join(dir, 'nope.jsonl'), undefined)).size).toBe(0);
  });

  it('records in more than two runs of line order are refused (batch runs leave at most two)', async () => {
    const path = join(dir, 'unordered.jsonl');
    writeFileSync(path, `${rec(3, true)}\n${rec(2, true)}\n${rec(1, true)}\n`);
    await expect(readDoneLines(path, undefined)).rejects.toThrow(/not in line order/);
  });

  it('reports the runs of a killed run, the highest line, and a half-written last line', async () => {
    const path = join(dir, 'two-runs.jsonl');
    writeFileSync(path, `${rec(1, true)}\n${rec(2, false)}\n${rec(2, true)}\n${rec(9, true).slice(0, 10)}`);
    const state = await readResumeState(path, undefined);
    expect(state.runs.length).toBe(2);
    expect(state.lastLine).toBe(2);
    expect(state.tail).toBe('partial');
    expect([1, 2].map((n) => state.done.has(n))).toEqual([true, true]);
  });

  const linesOf = (path: string) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { line: number; result?: unknown });

  it('appends each record as it comes, then merges with the earlier ones, in line order, one record per line', async () => {
    const path = join(dir, 'merge.jsonl');
    writeFileSync(
      path,
      `${rec(1, true)}\n${rec(2, false)}\n${rec(4, true)}\n${rec(6, true)}\n${rec(7, true).slice(0, 9)}`,
    );
    const state = await readResumeState(path, undefined);
    const sink = await ResumeFileSink.open(path, state);
    sink.write(2, `${rec(2, true)}\n`);
    sink.write(3, `${rec(3, true)}\n`);
    await new Promise((r) => setImmediate(r));
    // Already in the file, after the earlier records (the half-written line cut off): a SIGKILL now loses nothing.
    expect(linesOf(path).map((l) => l.line)).toEqual([1, 2, 4, 6, 2, 3]);
    sink.write(5, `${rec(5, false)}\n`);
    sink.write(7, `${rec(7, true)}\n`);
    await sink.finish();
    expect(linesOf(path).map((l) => [l.line, l.result !== undefined])).toEqual([
      [1, true],
      [2, true],
      [3, true],
      [4, true],
      [5, false],
      [6, true],
      [7, true],
    ]);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('stopped early, the rest of the earlier records is still kept', async () => {
    const path = join(dir, 'early.jsonl');
    writeFileSync(path, `${rec(1, true)}\n${rec(5, true)}\n${rec(9, true)}\n`);
    const sink = await ResumeFileSink.open(path, await readResumeState(path, undefined));
    sink.write(2, `${rec(2, true)}\n`);
    await sink.finish();
    expect(linesOf(path).map((l) => l.line)).toEqual([1, 2, 5, 9]);
  });

  it('a run killed before its merge leaves two runs, which the next run merges first (a later error replaces an earlier one)', async () => {
    const path = join(dir, 'killed.jsonl');
    writeFileSync(
      path,
      `${rec(1, true)}\n${rec(2, false)}\n${rec(3, false)}\n${rec(2, true)}\n${rec(3, false).replace('"x"', '"later"')}\n`,
    );
    const sink = await ResumeFileSink.open(path, await readResumeState(path, undefined));
    await sink.finish();
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    expect(lines).toEqual([rec(1, true), rec(2, true), rec(3, false).replace('"x"', '"later"')]);
  });

  it('discarding keeps what was appended: the file stays resumable as it is', async () => {
    const path = join(dir, 'discard.jsonl');
    writeFileSync(path, `${rec(1, true)}\n`);
    const sink = await ResumeFileSink.open(path, await readResumeState(path, undefined));
    sink.write(2, `${rec(2, true)}\n`);
    await sink.discard();
    expect(readFileSync(path, 'utf8')).toBe(`${rec(1, true)}\n${rec(2, true)}\n`);
    expect(existsSync(path)).toBe(true);
  });
});

describe('the progress line', () => {
  it('shows done/total, failures, rate and ETA; without a total, no ETA', () => {
    const stats = { written: 50, succeeded: 48, failed: 2, throttled: 0, limit: 4 };
    expect(renderProgress(stats, 10_000, 150)).toBe('batch: 50/150 done · 2 failed · 5.0 lines/s · ETA 20s');
    expect(renderProgress(stats, 10_000, undefined)).toBe('batch: 50 done · 2 failed · 5.0 lines/s');
    expect(renderProgress({ ...stats, throttled: 3, limit: 2 }, 1000, undefined)).toContain('429×3, limit 2');
  });
});
