import { Help } from 'commander';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type CommandSpec, type OptionsOf, type OptionValues, optionKey } from '../../src/command.js';
import type { GlobalOptions } from '../../src/global-options.js';
import type { GLOBAL_OPTION_SPECS } from '../../src/global-options.js';
import { COMMAND_SPECS, COMMANDS } from '../../src/cli/commands.js';
import { commandKey, HELP_GROUPS } from '../../src/define-command.js';
import { runInProcess } from '../helpers/run-cli.js';

describe('the command list', () => {
  it('names each command once, each with its handler', () => {
    const keys = COMMAND_SPECS.map(commandKey);
    expect(new Set(keys).size).toBe(keys.length);
    for (const c of COMMANDS) expect(typeof c.run, commandKey(c.spec)).toBe('function');
  });

  it('gives the commands of one top-level word one help group', () => {
    const groups = new Map<string, Set<string>>();
    for (const c of COMMANDS) {
      const top = c.spec.path[0] as string;
      groups.set(top, (groups.get(top) ?? new Set()).add(c.helpGroup));
    }
    for (const [top, headings] of groups) expect([...headings], top).toHaveLength(1);
    expect(new Set(COMMANDS.map((c) => c.helpGroup))).toEqual(new Set(HELP_GROUPS));
  });

  it('declares each flag of a command once', () => {
    for (const spec of COMMAND_SPECS) {
      const keys = spec.options.map((o) => (/--no-/.test(o.flags) ? `no-${optionKey(o.flags)}` : optionKey(o.flags)));
      expect(keys.length, commandKey(spec)).toBe(new Set(keys).size);
    }
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
    '%s --help: the description fits 80 columns, example lines broken with shell continuations',
    async (_key, spec) => {
      const r = await runInProcess([...spec.path, '--help']);
      expect(r.exitCode).toBe(0);
      const examples = (spec.description ?? '').split('\n').filter((l) => l.startsWith('  '));
      const description = r.stdout.slice(r.stdout.indexOf('\n\n') + 2, r.stdout.search(/\n(Arguments|Options):\n/));
      expect(description.replace(/\s+/g, ' ')).toContain(spec.summary);
      for (const line of description.split('\n')) {
        expect(new Help().displayWidth(line), JSON.stringify(line)).toBeLessThanOrEqual(80);
      }
      // Read back as the shell reads it, a broken example is the one written.
      const joined = r.stdout.replace(/ \\\n\s+/g, ' ');
      for (const example of examples) expect(joined).toContain(`\n${example.replace(/\s*\\\n\s*/g, ' ')}\n`);
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
    expect(r.stdout).toMatch(/'batch'\) echo '[^']*\bmerge\b/);
    expect(r.stdout).toMatch(/'batch merge'\) echo '--input'/);
    expect(r.stdout).toMatch(/--input[^\n]*\) _textgen_files/);
  });
});

describe('handler options are typed from the spec', () => {
  it('the key OptionsOf derives for each flag is the one commander stores it under', async () => {
    const { Option } = await import('commander');
    // optionKey is the type-level rule (src/command.ts OptionKey) spelled out at run time: long name, camelCase,
    // without "no-".
    for (const spec of COMMAND_SPECS) {
      for (const o of spec.options)
        expect(optionKey(o.flags), `${commandKey(spec)} ${o.flags}`).toBe(new Option(o.flags).attributeName());
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
    expectTypeOf<OptionsOf<SpecOf<'batch merge'>>>().toEqualTypeOf<{ input?: string } & { args: string[] }>();
  });
});

/*
 * Each handler's options are exactly what its spec derives: a handler that names a flag its spec does not declare,
 * or gives one another type, fails `npm run typecheck` here (defineCommand alone would let a handler ask for an extra
 * optional key). Read from the one list (src/cli/commands.ts): a new command is checked without a line here.
 */
type Definition = (typeof COMMANDS)[number];
/** The words of a command key: "batch merge" → ["batch", "merge"]. */
type Words<K extends string> = K extends `${infer A} ${infer B}` ? readonly [A, B] : readonly [K];
/** The spec of the command with these words. */
type SpecOf<K extends string> = Extract<Definition, { spec: { path: Words<K> } }>['spec'];
type KeyOf<S extends CommandSpec> = S['path'] extends readonly [infer A extends string]
  ? A
  : S['path'] extends readonly [infer A extends string, infer B extends string]
    ? `${A} ${B}`
    : never;
/** Whether two types are the same (not merely assignable either way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** The key of each command whose handler's options are not exactly its spec's OptionsOf. */
type Mistyped = {
  [I in keyof typeof COMMANDS]: (typeof COMMANDS)[I] extends { spec: infer S extends CommandSpec; handler: infer H }
    ? H extends (options: infer O, ...rest: never[]) => unknown
      ? Same<O, OptionsOf<S>> extends true
        ? never
        : KeyOf<S>
      : KeyOf<S>
    : 'not a definition';
}[number];

describe("every handler's options are its spec's OptionsOf (checked by the type checker)", () => {
  it('command by command, from the list', () => {
    expectTypeOf<Mistyped>().toEqualTypeOf<never>();
    expectTypeOf<KeyOf<SpecOf<'tokenize'>>>().toEqualTypeOf<'tokenize'>();
  });

  it('a key the spec does not declare is a type error; shared tables keep their keys and value types', () => {
    const tokenizeOptions = {} as OptionsOf<SpecOf<'tokenize'>>;
    // @ts-expect-error tokenize declares no --temperature
    void tokenizeOptions.temperature;
    expectTypeOf(tokenizeOptions.tokens).toEqualTypeOf<boolean | undefined>();
    const streamOptions = {} as OptionsOf<SpecOf<'deployment text-generate-stream'>>;
    // @ts-expect-error text-generate-stream takes every flag of text-generate but --stream
    void streamOptions.stream;
    expectTypeOf(streamOptions.parametersStopSequences).toEqualTypeOf<string[] | undefined>();
    expectTypeOf(streamOptions.parametersIncludeStopSequence).toEqualTypeOf<string | true | undefined>();
    expectTypeOf(streamOptions.concurrency).toEqualTypeOf<string | undefined>();
    const completeOptions = {} as OptionsOf<SpecOf<'complete'>>;
    expectTypeOf(completeOptions.temperature).toEqualTypeOf<string | undefined>();
    expectTypeOf(completeOptions.stop).toEqualTypeOf<string[] | undefined>();
    expectTypeOf(completeOptions.logprobs).toEqualTypeOf<string | true | undefined>();
    expectTypeOf(completeOptions.stream).toEqualTypeOf<boolean | undefined>();
    const chatOptions = {} as OptionsOf<SpecOf<'chat'>>;
    expectTypeOf(chatOptions.choices).toEqualTypeOf<string | undefined>();
    expectTypeOf(chatOptions.failFast).toEqualTypeOf<string | true | undefined>();
    expectTypeOf(chatOptions.batch).toEqualTypeOf<string | undefined>();
  });

  it('the global options are derived from their table', () => {
    expectTypeOf<GlobalOptions>().toEqualTypeOf<OptionValues<typeof GLOBAL_OPTION_SPECS>>();
    expectTypeOf<GlobalOptions>().toEqualTypeOf<{
      profile?: string;
      config?: string;
      provider?: string;
      url?: string;
      apiKey?: string;
      token?: string;
      apiVersion?: string;
      output?: string;
      jmesQuery?: string;
      rawOutput?: boolean;
      quiet?: boolean;
      verbose?: boolean;
      color?: boolean;
      interactive?: boolean;
      dryRun?: boolean;
      timeout?: string;
      maxTime?: string;
      retries?: string;
      caCert?: string;
      insecure?: boolean;
      record?: string;
      replay?: string;
      match?: string[];
      replayTiming?: string;
    }>();
  });
});
