import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CommandSpec, OptionSpec } from '../../src/command.js';
import { COMMAND_SPECS } from '../../src/cli/commands.js';
import { parseCommandLine } from '../../src/cli/program.js';
import { quickParse } from '../../src/cli/quick-parse.js';
import { routedSpec } from '../../src/cli/route.js';
import { GLOBAL_OPTION_SPECS } from '../../src/global-options.js';
import { baseEnv, inProcessIo } from '../helpers/run-cli.js';

/*
 * The launcher parses the command line of a routed command without commander (src/cli/quick-parse.ts). Where it
 * gives an answer, it must be commander's answer, key order included (handlers may walk the options in order);
 * where commander would print anything, it must give none. The table is made from the specs, so a command or flag
 * added later is checked the same way.
 */
async function commander(argv: readonly string[]) {
  const io = inProcessIo(undefined);
  const outcome = await parseCommandLine([...argv], { env: baseEnv(), cwd: process.cwd(), ...io.streams });
  return 'selection' in outcome ? outcome.selection : undefined;
}

function quick(argv: readonly string[]) {
  const spec = routedSpec(argv, COMMAND_SPECS, GLOBAL_OPTION_SPECS);
  return spec === undefined ? undefined : quickParse(argv, spec, GLOBAL_OPTION_SPECS);
}

/** Both parsers on one line: the same selection, or the quick one gives up. Returns whether it answered. */
async function same(argv: readonly string[]): Promise<boolean> {
  const q = quick(argv);
  if (q === undefined) return false;
  const c = await commander(argv);
  expect(c, argv.join(' ')).toBeDefined();
  // JSON keeps the key order: the same options in the same order.
  expect(JSON.stringify(q), argv.join(' ')).toBe(JSON.stringify(c));
  return true;
}

const names = (o: OptionSpec) => o.flags.split(/[ ,]+/).filter((w) => /^--?[A-Za-z]/.test(w));
const takesValue = (o: OptionSpec) => o.flags.includes('<');
const optionalValue = (o: OptionSpec) => o.flags.includes('[');

/** The words of a command with the positional arguments it requires. */
function base(spec: CommandSpec): string[] {
  const required = (spec.args ?? '').split(/\s+/).filter((w) => w.startsWith('<'));
  return [...spec.path, ...required.map((_, i) => `arg${i}`)];
}

/** Every way each option of a table can be written that commander accepts. */
function forms(o: OptionSpec): string[][] {
  const [first, second] = names(o);
  const long = (second ?? first) as string;
  const short = second === undefined ? undefined : first;
  if (takesValue(o))
    return [
      [long, 'v1'],
      [`${long}=v=2`],
      [long, '-v3'],
      ...(short ? [[short, 'v4'], [`${short}v5`]] : []),
      ...(o.repeatable ? [[long, 'a', long, 'b']] : []),
    ];
  if (optionalValue(o)) return [[long], [long, 'false'], [`${long}=true`], [long, '-1']];
  return [[long], ...(short ? [[short]] : [])];
}

const GLOBALS_BEFORE = ['--provider', 'watsonx', '--url', 'http://127.0.0.1:1', '--token', 't'];

describe('the quick parse of a routed command line', () => {
  it("gives commander's options for every flag of every command, with the globals before, between and after the words", async () => {
    let answered = 0;
    for (const spec of COMMAND_SPECS) {
      const words = base(spec);
      for (const o of spec.options)
        for (const form of forms(o)) {
          // A command's own `--version DATE` (the wx-ai mirrors): a bare `--version` is left to commander, which
          // tells it from textgen's version (src/cli/route.ts versionIsTheCommands); where the quick parse does
          // answer (`--version=DATE`), same() holds it to commander's answer.
          if (names(o).includes('--version')) {
            await same([...GLOBALS_BEFORE, ...words, ...form]);
            continue;
          }
          expect(await same([...GLOBALS_BEFORE, ...words, ...form]), [...words, ...form].join(' ')).toBe(true);
          expect(await same([...words, ...form, '-q', '--no-color'])).toBe(true);
          answered += 2;
        }
      for (const g of GLOBAL_OPTION_SPECS)
        for (const form of forms(g)) {
          expect(await same([...words, ...form]), [...words, ...form].join(' ')).toBe(true);
          expect(await same([...form, ...words])).toBe(true);
        }
      if (spec.path.length > 1) expect(await same([spec.path[0] as string, '-q', ...words.slice(1)])).toBe(true);
    }
    expect(answered).toBeGreaterThan(200);
  });

  it('gives commander its turn for help, usage errors and shapes it does not follow', async () => {
    for (const argv of [
      ['deployment', 'text-generate', '--help'],
      ['deployment', 'text-generate', '-h'],
      ['deployment', 'text-generate', '--input'],
      ['deployment', 'text-generate', '--input', '-q'],
      ['deployment', 'text-generate', '--bogus'],
      ['deployment', 'text-generate', '--', '--input'],
      ['deployment', 'text-generate', 'extra'],
      ['deployment', 'text-generate', '--echo=yes'],
      ['deployment', 'help', 'text-generate'],
      ['batch', 'merge'],
      ['models', 'a', 'b'],
      ['--url'],
      ['--version'],
    ])
      expect(quick(argv), argv.join(' ')).toBeUndefined();
  });

  it('agrees with commander on any mix of known flags, values and words', async () => {
    const spec = COMMAND_SPECS.find((s) => s.path.join(' ') === 'deployment text-generate') as CommandSpec;
    const tokens = [
      ...new Set(
        [...spec.options, ...GLOBAL_OPTION_SPECS].flatMap((o) => names(o)).concat(['x', '-1', '-qv', '-ojson', '-']),
      ),
    ];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...tokens), { maxLength: 8 }), async (extra) => {
        const argv = ['deployment', 'text-generate', ...extra];
        const q = quick(argv);
        const c = await commander(argv);
        if (q !== undefined) expect(JSON.stringify(q)).toBe(JSON.stringify(c));
      }),
      { numRuns: 300 },
    );
  });
});
