import { describe, expect, it } from 'vitest';
import { COMMAND_SPECS } from '../../src/cli/commands.js';
import { helpGroups } from '../../src/cli/program.js';
import { runInProcess } from '../helpers/run-cli.js';

const specs = COMMAND_SPECS;

describe('textgen --help', () => {
  it('groups the commands under headings, each command once', async () => {
    const r = await runInProcess(['--help']);
    expect(r.exitCode).toBe(0);
    const headings = ['Generate:', 'Embeddings and tokens:', 'Aleph Alpha tasks:', 'Inspect:', 'Setup:'];
    const at = headings.map((h) => r.stdout.indexOf(`\n${h}\n`));
    expect(at.every((i) => i > 0)).toBe(true);
    for (const top of new Set(specs.map((s) => s.path[0] as string))) {
      const heading = helpGroups()[top];
      expect(heading, `${top} has a help group`).toBeDefined();
      const section = r.stdout.slice(r.stdout.indexOf(`\n${heading}\n`)).split('\n\n')[0] as string;
      expect(section).toMatch(new RegExp(`\\n  ${top}\\b`));
    }
  });

  it('lists each command by its one-line summary, not its whole description', async () => {
    const r = await runInProcess(['--help']);
    for (const spec of specs.filter((s) => s.description !== undefined && s.path.length === 1)) {
      const firstLine = (spec.description as string).split('\n')[0] as string;
      expect(r.stdout).not.toContain(firstLine);
    }
  });
});

describe.each(specs.map((s) => [s.path.join(' '), s] as const))('textgen %s --help', (path, spec) => {
  it('has a summary and a description', async () => {
    expect(spec.summary.length).toBeGreaterThan(10);
    expect(spec.description?.length ?? 0).toBeGreaterThan(20);
    const r = await runInProcess([...spec.path, '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`Usage: textgen ${path}`);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(
      (spec.description as string).split('\n')[0]?.replace(/\s+/g, ' ').slice(0, 40),
    );
  });

  it('shows two or three examples of this command', async () => {
    expect(spec.examples.length).toBeGreaterThanOrEqual(2);
    expect(spec.examples.length).toBeLessThanOrEqual(3);
    const r = await runInProcess([...spec.path, '--help']);
    // Examples wider than the help are broken with shell continuations: joined, they are the ones written.
    const examples = r.stdout.slice(r.stdout.indexOf('\nExamples:\n')).replace(/ \\\n\s+/g, ' ');
    expect(examples.startsWith('\nExamples:\n')).toBe(true);
    for (const e of spec.examples) {
      expect(examples).toContain(`$ ${e.replace(/\s*\\\n\s*/g, ' ')}`);
      expect(e, 'the example runs this command').toContain(` ${path}`);
    }
  });
});

describe('mistyped names suggest the closest match', () => {
  it.each([
    ['a command', ['complet'], "unknown command 'complet'", 'complete'],
    ['a command word', ['completio', 'bash'], "unknown command 'completio'", 'completion'],
    ['a nested command', ['deployment', 'text-generat'], "unknown command 'text-generat'", 'text-generate'],
    [
      'a flag of a nested command',
      ['deployment', 'text-generate', '--parameters-top-kk', '3'],
      "unknown option '--parameters-top-kk'",
      '--parameters-top-k',
    ],
    ['a flag of a command', ['tokenize', '--tokns', 'x'], "unknown option '--tokns'", '--tokens'],
    ['a global flag', ['--profle', 'local', 'health'], "unknown option '--profle'", '--profile'],
    ['a global flag after the command', ['health', '--outptu', 'json'], "unknown option '--outptu'", '--output'],
  ])('%s', async (_case, args, error, suggestion) => {
    const r = await runInProcess(args);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: ${error}\n(Did you mean ${suggestion}?)\n`);
  });
});
