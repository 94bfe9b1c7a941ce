import { Help } from 'commander';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type CommandSpec, type OptionsOf, type OptionValues, optionKey } from '../../src/command.js';
import type { GlobalOptions } from '../../src/config/types.js';
import type { GLOBAL_OPTION_SPECS } from '../../src/global-options.js';
import type { spec as mergeSpec } from '../../commands/batch/merge.js';
import { COMMAND_SPECS, commandKey } from '../../commands/index.js';
import { HANDLERS } from '../../commands/handlers.js';
import type * as textGenerate from '../../commands/deployment/text-generate.js';
import type * as textGenerateStream from '../../commands/deployment/text-generate-stream.js';
import type * as complete from '../../commands/complete.js';
import type * as chat from '../../commands/chat.js';
import type * as models from '../../commands/models.js';
import type * as health from '../../commands/health.js';
import type * as evaluate from '../../commands/evaluate.js';
import type * as explain from '../../commands/explain.js';
import type * as qa from '../../commands/qa.js';
import type * as summarize from '../../commands/summarize.js';
import type * as tokenize from '../../commands/tokenize.js';
import type * as detokenize from '../../commands/detokenize.js';
import type * as embed from '../../commands/embed.js';
import type * as serve from '../../commands/serve.js';
import type * as profilesList from '../../commands/profiles/list.js';
import type * as profilesShow from '../../commands/profiles/show.js';
import type * as profilesAdd from '../../commands/profiles/add.js';
import type * as profilesRemove from '../../commands/profiles/remove.js';
import type * as profilesUse from '../../commands/profiles/use.js';
import type * as batchMerge from '../../commands/batch/merge.js';
import type { spec as completionSpec } from '../../commands/completion.js';
import type { runCompletion } from '../../src/completion/command.js';
import { runInProcess } from '../helpers/run-cli.js';

describe('the command list', () => {
  it('has one handler for every spec and no handler without a spec', () => {
    const keys = COMMAND_SPECS.map(commandKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(Object.keys(HANDLERS).sort()).toEqual([...keys].sort());
  });

  it("types each handler from the spec listed under its key (not another command's)", () => {
    for (const spec of COMMAND_SPECS) expect(HANDLERS[commandKey(spec)]?.spec, commandKey(spec)).toBe(spec);
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
    expect(r.stdout).toContain("'batch') echo 'merge'");
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
    expectTypeOf<OptionsOf<typeof mergeSpec>>().toEqualTypeOf<{ input?: string } & { args: string[] }>();
  });
});

/*
 * Each handler's options are exactly what its spec derives: a handler that names a flag its spec does not declare,
 * or gives one another type, fails `npm run typecheck` here (typed() alone would let a handler ask for an extra
 * optional key). Checked by the type checker; vitest runs the bodies, which assert nothing at run time.
 */
describe("every handler's options are its spec's OptionsOf (checked by the type checker)", () => {
  it('handler by handler', () => {
    expectTypeOf<Parameters<typeof textGenerate.run>[0]>().toEqualTypeOf<OptionsOf<typeof textGenerate.spec>>();
    expectTypeOf<Parameters<typeof textGenerateStream.run>[0]>().toEqualTypeOf<
      OptionsOf<typeof textGenerateStream.spec>
    >();
    expectTypeOf<Parameters<typeof complete.run>[0]>().toEqualTypeOf<OptionsOf<typeof complete.spec>>();
    expectTypeOf<Parameters<typeof chat.run>[0]>().toEqualTypeOf<OptionsOf<typeof chat.spec>>();
    expectTypeOf<Parameters<typeof models.run>[0]>().toEqualTypeOf<OptionsOf<typeof models.spec>>();
    expectTypeOf<Parameters<typeof health.run>[0]>().toEqualTypeOf<OptionsOf<typeof health.spec>>();
    expectTypeOf<Parameters<typeof evaluate.run>[0]>().toEqualTypeOf<OptionsOf<typeof evaluate.spec>>();
    expectTypeOf<Parameters<typeof explain.run>[0]>().toEqualTypeOf<OptionsOf<typeof explain.spec>>();
    expectTypeOf<Parameters<typeof qa.run>[0]>().toEqualTypeOf<OptionsOf<typeof qa.spec>>();
    expectTypeOf<Parameters<typeof summarize.run>[0]>().toEqualTypeOf<OptionsOf<typeof summarize.spec>>();
    expectTypeOf<Parameters<typeof tokenize.run>[0]>().toEqualTypeOf<OptionsOf<typeof tokenize.spec>>();
    expectTypeOf<Parameters<typeof detokenize.run>[0]>().toEqualTypeOf<OptionsOf<typeof detokenize.spec>>();
    expectTypeOf<Parameters<typeof embed.run>[0]>().toEqualTypeOf<OptionsOf<typeof embed.spec>>();
    expectTypeOf<Parameters<typeof serve.run>[0]>().toEqualTypeOf<OptionsOf<typeof serve.spec>>();
    expectTypeOf<Parameters<typeof profilesList.run>[0]>().toEqualTypeOf<OptionsOf<typeof profilesList.spec>>();
    expectTypeOf<Parameters<typeof profilesShow.run>[0]>().toEqualTypeOf<OptionsOf<typeof profilesShow.spec>>();
    expectTypeOf<Parameters<typeof profilesAdd.run>[0]>().toEqualTypeOf<OptionsOf<typeof profilesAdd.spec>>();
    expectTypeOf<Parameters<typeof profilesRemove.run>[0]>().toEqualTypeOf<OptionsOf<typeof profilesRemove.spec>>();
    expectTypeOf<Parameters<typeof profilesUse.run>[0]>().toEqualTypeOf<OptionsOf<typeof profilesUse.spec>>();
    expectTypeOf<Parameters<typeof batchMerge.run>[0]>().toEqualTypeOf<OptionsOf<typeof batchMerge.spec>>();
    expectTypeOf<Parameters<typeof runCompletion>[0]>().toEqualTypeOf<OptionsOf<typeof completionSpec>>();
  });

  it('a key the spec does not declare is a type error; shared tables keep their keys and value types', () => {
    const tokenizeOptions = {} as OptionsOf<typeof tokenize.spec>;
    // @ts-expect-error tokenize declares no --temperature
    void tokenizeOptions.temperature;
    expectTypeOf(tokenizeOptions.tokens).toEqualTypeOf<boolean | undefined>();
    const streamOptions = {} as OptionsOf<typeof textGenerateStream.spec>;
    // @ts-expect-error text-generate-stream takes every flag of text-generate but --stream
    void streamOptions.stream;
    expectTypeOf(streamOptions.parametersStopSequences).toEqualTypeOf<string[] | undefined>();
    expectTypeOf(streamOptions.parametersIncludeStopSequence).toEqualTypeOf<string | true | undefined>();
    expectTypeOf(streamOptions.concurrency).toEqualTypeOf<string | undefined>();
    const completeOptions = {} as OptionsOf<typeof complete.spec>;
    expectTypeOf(completeOptions.temperature).toEqualTypeOf<string | undefined>();
    expectTypeOf(completeOptions.stop).toEqualTypeOf<string[] | undefined>();
    expectTypeOf(completeOptions.logprobs).toEqualTypeOf<string | true | undefined>();
    expectTypeOf(completeOptions.stream).toEqualTypeOf<boolean | undefined>();
    const chatOptions = {} as OptionsOf<typeof chat.spec>;
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
    }>();
  });
});
