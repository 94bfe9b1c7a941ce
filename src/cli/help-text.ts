/**
 * Help text that is not a command's own (the parser bundle loads it with commander; nothing heavy): examples for the
 * top level and the command groups, example command lines wrapped to the help width with shell continuations so a
 * copied line still runs, and the global options shown once (`textgen help globals`) instead of in every command.
 */
import { Command, Option } from 'commander';
import { GLOBAL_OPTION_SPECS } from '../global-options.js';

/** Examples of `textgen --help` and of each group's help, all runnable against the built-in local profiles. */
export const GROUP_EXAMPLES: Record<string, readonly string[]> = {
  '': [
    'textgen --profile local deployment text-generate --id-or-name demo --input "Hello"',
    'textgen --profile local complete "Write a haiku about rivers"',
    'textgen --profile local-openai chat -m llama3 "Name a river."',
    'textgen help globals',
  ],
  deployment: [
    'textgen --profile local deployment text-generate --id-or-name demo --input "Hello" -o json',
    'textgen --profile local deployment text-generate-stream --id-or-name demo --input "Once upon a time"',
  ],
  batch: [
    'textgen batch merge --input prompts.jsonl part-*.jsonl > all.jsonl',
    'textgen --profile openai batch submit prompts.jsonl --endpoint chat -m gpt-4o-mini',
    'textgen --profile openai batch wait --state prompts.jsonl.batch.json',
    'textgen --profile openai batch results --state prompts.jsonl.batch.json --out out.jsonl',
  ],
  profiles: ['textgen profiles list', 'textgen profiles show local', 'textgen profiles add'],
};

/** The line each command's help ends with, instead of the twenty global options. */
export const GLOBALS_POINTER = 'Global options (--profile, -o, -j, --dry-run, -v, …): textgen help globals';

/** "Examples:" and its lines, each wrapped to `width`. */
export function examplesText(examples: readonly string[], width: number): string {
  return `\nExamples:\n${examples.map((e) => wrapCommandLine(`  $ ${e}`, width, '      ')).join('\n')}\n`;
}

/**
 * A command line of more than `width` columns, broken between words (never inside quotes) with ` \` at each break
 * and `indent` before each continued line: the shell reads the pieces back as the one command.
 */
export function wrapCommandLine(line: string, width: number, indent = '    '): string {
  if (line.length <= width) return line;
  const lead = /^\s*/.exec(line)?.[0] ?? '';
  // Continuations already written into the example are laid out again.
  const words =
    line
      .slice(lead.length)
      .replace(/\s*\\\n\s*/g, ' ')
      .match(/(?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+/g) ?? [];
  const lines: string[] = [];
  let current = lead;
  for (const word of words) {
    const start = current === lead || current === indent;
    if (!start && current.length + 1 + word.length + 2 > width) {
      lines.push(`${current} \\`);
      current = indent + word;
    } else current = start ? current + word : `${current} ${word}`;
  }
  lines.push(current);
  return lines.join('\n');
}

/** `textgen help globals`: the global options, once. */
export function globalsHelp(): Command {
  const globals = new Command('textgen')
    .usage('[global options] <command> [options]')
    .description('Global options: they may come before or after the command words (cpd-cli users write -o json last).')
    .helpOption(false);
  for (const o of GLOBAL_OPTION_SPECS) globals.addOption(new Option(o.flags, o.description));
  return globals;
}

/**
 * The command lines whose whole output is a help page that depends on nothing but the build: `npm run build`
 * (scripts/bundle.mjs) renders each through commander once and the launcher prints the stored text, so `textgen
 * --help` builds no commander object at all (formatting every command's help cost `--help` about 70 M instructions,
 * docs/performance.md). A line that renders anything but a page on stdout with exit 0 is simply not stored.
 */
export function helpCommandLines(
  paths: readonly (readonly string[])[],
  groups: readonly string[],
): readonly (readonly string[])[] {
  const lines: string[][] = [[], ['--help'], ['-h'], ['help'], ['help', 'globals']];
  for (const group of groups) lines.push([group]);
  for (const path of [...groups.map((g) => [g]), ...paths])
    lines.push([...path, '--help'], [...path, '-h'], ['help', ...path]);
  return lines;
}

/** The key of a command line in the stored pages: its words joined by NUL, which no argument can hold. */
export function helpPageKey(argv: readonly string[]): string {
  return argv.join('\u0000');
}
