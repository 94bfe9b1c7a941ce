import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, runBin } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';

const fixture = useServer();
const dir = mkdtempSync(join(tmpdir(), 'textgen-merge-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (name: string) => join(dir, name);
const merge = (args: string[]) => runBin(['batch', 'merge', ...args], { env: fixture.home.env, cwd: dir });
const record = (line: number, outcome: 'result' | 'error' = 'result') =>
  JSON.stringify(
    outcome === 'result' ? { line, result: { text: `r${line}` } } : { line, error: { exit_code: 4, message: 'no' } },
  );
const write = (name: string, lines: string[]) => writeFileSync(at(name), lines.map((l) => `${l}\n`).join(''));

describe('textgen batch merge', () => {
  it('puts the parts of a sharded batch back together: the records of the batch without --shard, in its order', async () => {
    // Line 4 is blank: no shard writes a record for it.
    const input = ['"one"', '{"input":"two","id":"b"}', '"three"', '', '"five"', '"six"', '"seven"'];
    write('in.jsonl', input);
    const gen = [
      '--url',
      fixture.server.url,
      '-q',
      'deployment',
      'text-generate',
      '--id-or-name',
      'demo',
      '--parameters-max-new-tokens',
      '3',
      '--batch',
      at('in.jsonl'),
    ];
    const whole = await runBin(gen, { env: fixture.home.env });
    expect(whole.exitCode).toBe(0);
    for (const k of [1, 2, 3]) {
      const part = await runBin([...gen, '--shard', `${k}/3`], { env: fixture.home.env });
      expect(part.exitCode).toBe(0);
      writeFileSync(at(`part-${k}.jsonl`), part.stdout);
    }

    // The lines and ids of the unsharded run, in its order; each record is the very line a shard wrote.
    const keys = (text: string) =>
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const { line, id } = JSON.parse(l) as { line: number; id?: string };
          return [line, id];
        });
    const r = await merge(['--input', 'in.jsonl', 'part-1.jsonl', 'part-2.jsonl', 'part-3.jsonl']);
    expect(r.stderr).toBe('batch merge: 6 records from 3 files (lines 1–7), 6 succeeded, 0 failed\n');
    expect(r.exitCode).toBe(0);
    expect(keys(r.stdout)).toEqual(keys(whole.stdout));
    const shardLines = [1, 2, 3].flatMap((k) =>
      readFileSync(at(`part-${k}.jsonl`), 'utf8')
        .split('\n')
        .filter(Boolean),
    );
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(shardLines.sort());
    // The order of the parts on the command line does not matter.
    expect((await merge(['--input', 'in.jsonl', 'part-3.jsonl', 'part-1.jsonl', 'part-2.jsonl'])).stdout).toBe(
      r.stdout,
    );
  });

  it('refuses a gap in the line numbers, writing nothing, and points to --input for blank lines', async () => {
    write('a.jsonl', [record(1), record(3)]);
    write('b.jsonl', [record(2), record(6)]);
    const r = await merge(['a.jsonl', 'b.jsonl']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'error: lines 4–5 have no record in any part (the next is line 6, in b.jsonl); if the input has blank lines there, pass --input FILE\n',
    );
    expect(r.stderr).toContain('hint: a part is missing or was cut short');
  });

  it('with --input: blank lines need no record, every other line does, to the end of the input', async () => {
    write('in2.jsonl', ['"a"', '"b"', '', '"d"', '"e"']);
    write('p1.jsonl', [record(1), record(4)]);
    write('p2.jsonl', [record(2)]);
    const missingLast = await merge(['--input', 'in2.jsonl', 'p1.jsonl', 'p2.jsonl']);
    expect(missingLast.exitCode).toBe(2);
    expect(missingLast.stdout).toBe('');
    expect(missingLast.stderr).toContain('error: line 5 of in2.jsonl has no record in any part\n');

    write('p3.jsonl', [record(5)]);
    const ok = await merge(['--input', 'in2.jsonl', 'p1.jsonl', 'p2.jsonl', 'p3.jsonl']);
    expect(ok.exitCode).toBe(0);
    expect(
      ok.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { line: number }).line),
    ).toEqual([1, 2, 4, 5]);

    write('p4.jsonl', [record(3)]);
    const blank = await merge(['--input', 'in2.jsonl', 'p1.jsonl', 'p2.jsonl', 'p3.jsonl', 'p4.jsonl']);
    expect(blank.exitCode).toBe(2);
    expect(blank.stderr).toContain('error: line 3 has a record, but it is blank in in2.jsonl\n');

    write('p5.jsonl', [record(9)]);
    const beyond = await merge(['--input', 'in2.jsonl', 'p1.jsonl', 'p2.jsonl', 'p3.jsonl', 'p5.jsonl']);
    expect(beyond.exitCode).toBe(2);
    expect(beyond.stderr).toContain('error: line 9 has a record, but in2.jsonl has only 5 lines\n');
  });

  it('refuses a line in two parts, a part given twice, a part out of order and what is not a record', async () => {
    write('x.jsonl', [record(1), record(2)]);
    write('y.jsonl', [record(2), record(3)]);
    const overlap = await merge(['x.jsonl', 'y.jsonl']);
    expect(overlap.exitCode).toBe(2);
    expect(overlap.stdout).toBe('');
    expect(overlap.stderr).toContain('error: line 2 has a record in both x.jsonl and y.jsonl\n');

    const twice = await merge(['x.jsonl', 'x.jsonl']);
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toBe('error: x.jsonl is given twice\n');

    write('back.jsonl', [record(1), record(2), record(3), record(2)]);
    const back = await merge(['back.jsonl']);
    expect(back.exitCode).toBe(2);
    expect(back.stderr).toContain('error: back.jsonl: not in line order (line 2 after line 3)\n');

    writeFileSync(at('cut.jsonl'), `${record(1)}\n{"line":2,"res`);
    const cut = await merge(['cut.jsonl']);
    expect(cut.exitCode).toBe(2);
    expect(cut.stdout).toBe('');
    expect(cut.stderr).toContain(
      'error: cut.jsonl, line 2: not a batch record (not JSON; a run killed while writing leaves a cut last line)\n',
    );

    write('odd.jsonl', ['{"line":1,"result":{},"error":{}}']);
    expect((await merge(['odd.jsonl'])).stderr).toContain(
      'error: odd.jsonl, line 1: not a batch record (it needs exactly one of "result" and "error")\n',
    );

    const none = await merge(['nope.jsonl']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toBe('error: cannot read nope.jsonl: no such file\n');
    expect((await merge([])).exitCode).toBe(2);
  });

  it('exits 4 when some records are errors, and keeps them', async () => {
    write('e1.jsonl', [record(1), record(3, 'error')]);
    write('e2.jsonl', [record(2)]);
    const r = await merge(['e1.jsonl', 'e2.jsonl']);
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe(`${record(1)}\n${record(2)}\n${record(3, 'error')}\n`);
    expect(r.stderr).toBe('batch merge: 3 records from 2 files (lines 1–3), 2 succeeded, 1 failed\n');
  });

  it('streams: parts larger than the heap allowed merge in constant memory', async () => {
    // 3 parts of 40 000 records (about 26 MB together) through a process whose old space is capped at 24 MB:
    // holding the records, or a whole part, would not fit.
    const pad = 'x'.repeat(180);
    const parts = [1, 2, 3].map((k) => at(`big-${k}.jsonl`));
    const lines = 120_000;
    await Promise.all(
      parts.map(async (file, i) => {
        const out = createWriteStream(file);
        for (let line = i + 1; line <= lines; line += 3) {
          if (!out.write(`{"line":${line},"result":{"text":"${pad}"}}\n`)) await once(out, 'drain');
        }
        out.end();
        await once(out, 'finish');
      }),
    );
    const r = await execa('node', ['--max-old-space-size=24', BIN, 'batch', 'merge', ...parts], {
      env: { ...baseEnv(), ...fixture.home.env, CI: 'true' },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      stdout: { file: at('big-all.jsonl') },
      timeout: 60_000,
      stripFinalNewline: false,
    });
    expect(r.stderr).toBe(
      `batch merge: ${lines} records from 3 files (lines 1–${lines}), ${lines} succeeded, 0 failed\n`,
    );
    expect(r.exitCode).toBe(0);
    const merged = readFileSync(at('big-all.jsonl'), 'utf8').split('\n');
    expect(merged.length).toBe(lines + 1);
    expect(merged[0]?.startsWith('{"line":1,')).toBe(true);
    expect(merged[lines - 1]?.startsWith(`{"line":${lines},`)).toBe(true);
  }, 90_000);
});
