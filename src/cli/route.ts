/**
 * Which command the words of a command line name, told from the words alone, so that the parser registers only
 * that command with commander: building all the commands' options is most of what parsing costs a request
 * (docs/performance.md, "Start-up"). Whatever is unclear — help, the version, an option before the command words
 * that is not global, no command at all — gets undefined, and the whole program is built, as it always was.
 */
import type { CommandSpec, OptionSpec } from '../command.js';

interface GlobalFlags {
  /** Long names that take a value ("--profile"). */
  long: ReadonlySet<string>;
  /** Long names that take none ("--quiet", "--no-color"). */
  switches: ReadonlySet<string>;
  /** Short letters that take a value ("o") and those that take none ("q"). */
  shortValue: ReadonlySet<string>;
  shortSwitch: ReadonlySet<string>;
}

function globalFlags(globals: readonly OptionSpec[]): GlobalFlags {
  const long = new Set<string>();
  const switches = new Set<string>();
  const shortValue = new Set<string>();
  const shortSwitch = new Set<string>();
  for (const { flags } of globals) {
    const takesValue = /[<[]/.test(flags);
    for (const name of flags.split(/[\s,]+/)) {
      if (name.startsWith('--')) (takesValue ? long : switches).add(name);
      else if (/^-[A-Za-z]$/.test(name)) (takesValue ? shortValue : shortSwitch).add(name.slice(1));
    }
  }
  return { long, switches, shortValue, shortSwitch };
}

/** The command words of argv (before any command option), or undefined when they cannot be told apart safely. */
function commandWords(argv: readonly string[], g: GlobalFlags, longest: number): string[] | undefined {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < longest; i++) {
    const token = argv[i] as string;
    if (token === '--') return undefined;
    if (!token.startsWith('-') || token === '-') {
      words.push(token);
      continue;
    }
    if (token.startsWith('--')) {
      const name = token.includes('=') ? token.slice(0, token.indexOf('=')) : token;
      if (g.long.has(name)) {
        if (!token.includes('=')) i++;
      } else if (!g.switches.has(name) || token.includes('=')) return undefined;
      continue;
    }
    // A cluster of short flags ("-qv", "-ojson", "-qo json"): switches, then at most one that takes a value.
    const letters = token.slice(1);
    for (let k = 0; k < letters.length; k++) {
      const letter = letters[k] as string;
      if (g.shortValue.has(letter)) {
        if (k === letters.length - 1) i++;
        break;
      }
      if (!g.shortSwitch.has(letter)) return undefined;
    }
  }
  return words;
}

/** The spec whose path the command line's words start with, when that is certain; undefined otherwise. */
export function routedSpec(
  argv: readonly string[],
  specs: readonly CommandSpec[],
  globals: readonly OptionSpec[],
): CommandSpec | undefined {
  if (argv.some((a) => a === '-h' || a === '--help')) return undefined;
  const spec = namedSpec(argv, specs, globals);
  if (argv.some(isVersionFlag) && !(spec && declaresVersion(spec))) return undefined;
  return spec;
}

function namedSpec(
  argv: readonly string[],
  specs: readonly CommandSpec[],
  globals: readonly OptionSpec[],
): CommandSpec | undefined {
  const longest = Math.max(...specs.map((s) => s.path.length));
  const words = commandWords(argv, globalFlags(globals), longest);
  if (words === undefined) return undefined;
  const named = specs.filter((s) => s.path.every((w, i) => words[i] === w));
  return named.sort((a, b) => b.path.length - a.path.length)[0];
}

function isVersionFlag(token: string): boolean {
  return token === '--version' || token.startsWith('--version=');
}

function declaresVersion(spec: CommandSpec): boolean {
  return spec.options.some((o) => /^--version\b/.test(o.flags));
}

/**
 * Whether a `--version` on the command line is the command's own (the API version date of the `wx-ai` mirror
 * commands, written after the command words as IBM's examples write it) rather than textgen's: the words before it
 * name a command that declares `--version`. `textgen --version`, and `--version` before the command words or after
 * a command without one, stay textgen's version.
 */
export function versionIsTheCommands(
  argv: readonly string[],
  specs: readonly CommandSpec[],
  globals: readonly OptionSpec[],
): boolean {
  const at = argv.findIndex(isVersionFlag);
  if (at < 0) return false;
  const spec = namedSpec(argv.slice(0, at), specs, globals);
  return spec !== undefined && declaresVersion(spec);
}
