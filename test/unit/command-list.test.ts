import { Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_SPECS, commandKey } from '../../commands/index.js';
import { HANDLERS } from '../../commands/handlers.js';
import { runInProcess } from '../helpers/run-cli.js';

describe('the command list', () => {
  it('has one handler for every spec and no handler without a spec', () => {
    const keys = COMMAND_SPECS.map(commandKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(Object.keys(HANDLERS).sort()).toEqual([...keys].sort());
  });
});

describe('help text is wrapped once', () => {
  it('descriptions are paragraphs: a line break only between paragraphs or before an indented example line', () => {
    for (const spec of COMMAND_SPECS) {
      const text = spec.description ?? '';
      const lines = text.split('\n');
      lines.forEach((line, i) => {
        if (i === 0) return;
        const previous = lines[i - 1] as string;
        const ok = line === '' || previous === '' || line.startsWith('  ');
        expect(ok, `${commandKey(spec)}: hard break before ${JSON.stringify(line.slice(0, 40))}`).toBe(true);
      });
    }
  });

  it.each(COMMAND_SPECS.map((s) => [commandKey(s), s] as const))('%s --help: the description fits 80 columns, example lines stay whole', async (_key, spec) => {
    const r = await runInProcess([...spec.path, '--help']);
    expect(r.exitCode).toBe(0);
    const examples = (spec.description ?? '').split('\n').filter((l) => l.startsWith('  '));
    const description = r.stdout.slice(r.stdout.indexOf('\n\n') + 2, r.stdout.search(/\n(Arguments|Options):\n/));
    expect(description.replace(/\s+/g, ' ')).toContain(spec.summary);
    for (const line of description.split('\n')) {
      if (examples.includes(line)) continue;
      expect(new Help().displayWidth(line), JSON.stringify(line)).toBeLessThanOrEqual(80);
    }
    for (const example of examples) expect(r.stdout).toContain(`\n${example}\n`);
  });
});

describe('shell completion knows batch merge', () => {
  it.each(['bash', 'zsh', 'fish'])('%s: the batch group, its merge command and --input as a file', async (shell) => {
    const r = await runInProcess(['completion', shell]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/\bbatch\b/);
    expect(r.stdout).toMatch(/\bmerge\b/);
    expect(r.stdout).toContain('input');
  });

  it('bash: merge completes its flags, and --input takes a file name', async () => {
    const r = await runInProcess(['completion', 'bash']);
    expect(r.stdout).toContain("'batch') echo 'merge'");
    expect(r.stdout).toMatch(/'batch merge'\) echo '--input'/);
    expect(r.stdout).toMatch(/--input[^\n]*\) _textgen_files/);
  });
});
