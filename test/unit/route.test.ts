import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMAND_SPECS } from '../../src/cli/commands.js';
import { parseCommandLine } from '../../src/cli/program.js';
import { GLOBAL_OPTION_SPECS } from '../../src/global-options.js';
import { routedSpec } from '../../src/cli/route.js';
import { baseEnv, inProcessIo } from '../helpers/run-cli.js';

/** What parsing gives: the selection or exit code, and every byte written, with the routing on or off. */
async function parse(argv: string[], route: boolean) {
  const io = inProcessIo(undefined);
  const outcome = await parseCommandLine(argv, { env: baseEnv(), cwd: process.cwd(), ...io.streams }, { route });
  return { outcome, ...io.collected() };
}

const route = (argv: string[]) => routedSpec(argv, COMMAND_SPECS, GLOBAL_OPTION_SPECS)?.path.join(' ');

describe('routing a command line to the one command it names', () => {
  it('finds the command past global options, their values and clusters of short flags', () => {
    expect(route(['deployment', 'text-generate', '--input', 'x'])).toBe('deployment text-generate');
    expect(route(['--profile', 'chat', 'deployment', 'text-generate-stream'])).toBe('deployment text-generate-stream');
    expect(route(['-qo', 'json', 'models'])).toBe('models');
    expect(route(['-ojson', '--output=yaml', '-qv', 'complete', 'models'])).toBe('complete');
    expect(route(['deployment', '--url', 'http://x', 'text-generate'])).toBe('deployment text-generate');
    expect(route(['batch', 'merge', 'a.jsonl'])).toBe('batch merge');
  });

  it('leaves to the whole program what it cannot be sure of', () => {
    expect(route(['--help'])).toBeUndefined();
    expect(route(['deployment', 'text-generate', '-h'])).toBeUndefined();
    expect(route(['--version'])).toBeUndefined();
    expect(route(['--input', 'x', 'deployment', 'text-generate'])).toBeUndefined();
    expect(route(['-x', 'models'])).toBeUndefined();
    expect(route(['--quiet=1', 'models'])).toBeUndefined();
    expect(route(['--', 'models'])).toBeUndefined();
    expect(route(['deployment', 'text-generat'])).toBeUndefined();
    expect(route(['deployment'])).toBeUndefined();
    expect(route([])).toBeUndefined();
  });

  it('parses exactly as the whole program does: the same selection, exit code and output', async () => {
    const words = [...new Set(COMMAND_SPECS.flatMap((s) => s.path)), 'text-generat', 'help', 'x', '-', '--'];
    const flags = [
      ...new Set(
        [...GLOBAL_OPTION_SPECS, ...COMMAND_SPECS.flatMap((s) => s.options)].flatMap((o) =>
          o.flags.split(/[\s,]+/).filter((f) => f.startsWith('-')),
        ),
      ),
      '-qv',
      '-ojson',
      '--output=json',
      '--nope',
      '-h',
    ];
    const values = ['json', '1', 'demo', 'http://127.0.0.1:1', 'chat', 'models', '@x.json', 'true'];
    const token = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...words) },
      fc.constantFrom(...flags),
      fc.constantFrom(...values),
    );
    const commandLine = fc.oneof(
      fc.array(token, { maxLength: 8 }),
      // Mostly well-formed: a command's words, then tokens.
      fc
        .tuple(fc.array(token, { maxLength: 3 }), fc.constantFrom(...COMMAND_SPECS), fc.array(token, { maxLength: 5 }))
        .map(([before, spec, after]) => [...before, ...spec.path, ...after]),
    );
    await fc.assert(
      fc.asyncProperty(commandLine, async (argv) => {
        expect(await parse(argv, true)).toEqual(await parse(argv, false));
      }),
      { numRuns: 400 },
    );
  });
});
