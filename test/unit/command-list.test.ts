import { Help } from 'commander';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { CommandSpec, OptionsOf } from '../../src/command.js';
import type { spec as mergeSpec } from '../../commands/batch/merge.js';
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

  it.each(COMMAND_SPECS.map((s) => [commandKey(s), s] as const))(
    '%s --help: the description fits 80 columns, example lines stay whole',
    async (_key, spec) => {
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
    },
  );
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

describe('handler options are typed from the spec', () => {
  it('the key OptionsOf derives for each flag is the one commander stores it under', async () => {
    const { Option } = await import('commander');
    // The type-level rule (src/command.ts OptionKey), spelled out at run time: long name, camelCase, without "no-".
    const derived = (flags: string) => {
      const long = /--([A-Za-z0-9-]+)/.exec(flags)?.[1] ?? '';
      return long.replace(/^no-/, '').replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
    };
    for (const spec of COMMAND_SPECS) {
      for (const o of spec.options)
        expect(derived(o.flags), `${commandKey(spec)} ${o.flags}`).toBe(new Option(o.flags).attributeName());
    }
  });
});

describe('OptionsOf (checked by the type checker: npm run typecheck)', () => {
  it("derives each flag's key and value type", () => {
    const sample = {
      path: ['x'],
      summary: 'x',
      options: [
        { flags: '-m, --model <name>', description: '' },
        { flags: '--stop-sequences <list>', description: '', repeatable: true },
        { flags: '--stream [bool]', description: '' },
        { flags: '--no-check', description: '' },
        { flags: '--dry-run', description: '' },
      ],
      examples: [],
    } as const satisfies CommandSpec;
    expectTypeOf<OptionsOf<typeof sample>>().toEqualTypeOf<
      { model?: string; stopSequences?: string[]; stream?: string | true; check?: boolean; dryRun?: boolean } & {
        args: string[];
      }
    >();
    expectTypeOf<OptionsOf<typeof mergeSpec>>().toEqualTypeOf<{ input?: string } & { args: string[] }>();
  });
});
