/**
 * The command line of a command that ./route.ts has told apart, parsed without commander: building commander's
 * objects and loading dist/cli.cjs cost a request more than the parse itself (docs/performance.md, "Start-up, third
 * round"). This follows commander's own algorithm (Command.parseOptions and _parseCommand, commander 14) over the
 * same option tables, level by level (the program with the global options, each group word, the command), and gives
 * up — undefined — wherever commander would print something (help, a usage error, an unknown option) or where the
 * shape is unusual (`--`, variadic options). Then commander parses, as before: it stays the one source of help and
 * error messages. test/unit/quick-parse.test.ts checks both parsers give the same options, for every command's
 * every flag.
 */
import type { CommandSpec, OptionSpec } from '../command.js';
import type { GlobalOptions } from '../global-options.js';
import type { Selection } from './selection.js';

/** One option as commander's Option sees its flags (src/command.ts optionKey is the same key rule). */
interface Flag {
  short?: string;
  long?: string;
  /** `<value>`: the next word is the value, whatever it looks like. */
  required: boolean;
  /** `[value]`: the next word is the value unless it looks like an option. */
  optional: boolean;
  negate: boolean;
  repeatable: boolean;
  key: string;
}

/** Thrown inside the parse where commander would stop with a message: the caller falls back to commander. */
const GIVE_UP = Symbol('give up');

function camelcase(name: string): string {
  return name.split('-').reduce((s, word) => s + (word[0] as string).toUpperCase() + word.slice(1));
}

/** commander's splitOptionFlags and Option constructor, for the flag shapes specs use. */
function flagOf(spec: OptionSpec): Flag {
  const parts = spec.flags.split(/[ |,]+/);
  let short: string | undefined;
  let long: string | undefined;
  if (/^-[^-]$/.test(parts[0] ?? '')) short = parts.shift();
  if (/^--[^-]/.test(parts[0] ?? '')) long = parts.shift();
  // Variadic options and other shapes are not followed here.
  if (/\.\.\.[>\]]/.test(spec.flags) || (parts[0] ?? '').startsWith('-')) throw GIVE_UP;
  const negate = long?.startsWith('--no-') ?? false;
  const name = long !== undefined ? long.slice(2) : (short as string).slice(1);
  return {
    ...(short !== undefined ? { short } : {}),
    ...(long !== undefined ? { long } : {}),
    required: spec.flags.includes('<'),
    optional: spec.flags.includes('['),
    negate,
    repeatable: spec.repeatable === true,
    key: camelcase(negate ? name.replace(/^no-/, '') : name),
  };
}

/** A command level: its options and the values commander would store for them (`opts()`), defaults first. */
class Level {
  readonly flags: Flag[] = [];
  readonly values: Record<string, unknown> = {};

  constructor(
    specs: readonly OptionSpec[],
    readonly leaf: boolean,
  ) {
    for (const spec of specs) {
      const flag = flagOf(spec);
      // Command.addOption: --no-foo defaults foo to true, unless a --foo option is already defined.
      if (flag.negate && !this.find((flag.long as string).replace(/^--no-/, '--'))) this.values[flag.key] = true;
      this.flags.push(flag);
    }
  }

  find(arg: string): Flag | undefined {
    return this.flags.find((f) => f.short === arg || f.long === arg);
  }

  /** Command.addOption's value handler. `value` null: an optional value not given; undefined: a switch. */
  set(flag: Flag, value: string | null | undefined): void {
    let v: unknown = value;
    if (value != null && flag.repeatable) v = [...((this.values[flag.key] as string[] | undefined) ?? []), value];
    // No value: a --no-x switch stores false, any other switch or an optional value not given stores true.
    if (v == null) v = !flag.negate;
    this.values[flag.key] = v;
  }
}

const maybeOption = (arg: string) => arg.length > 1 && arg[0] === '-';

/** Command.parseOptions: the words this level takes, and what it leaves (operands, and the rest from the first unknown option). */
function parseOptions(level: Level, args: readonly string[], ancestors: readonly Level[]) {
  const operands: string[] = [];
  const unknown: string[] = [];
  let dest = operands;
  const digitShort = [level, ...ancestors].some((l) => l.flags.some((f) => /^-\d$/.test(f.short ?? '')));
  const negativeNumber = (arg: string) => /^-(\d+|\d*\.\d+)(e[+-]?\d+)?$/.test(arg) && !digitShort;
  let activeGroup: string | undefined;
  let i = 0;
  while (i < args.length || activeGroup !== undefined) {
    const arg = activeGroup ?? (args[i++] as string);
    activeGroup = undefined;
    if (arg === '--') throw GIVE_UP;
    if (maybeOption(arg)) {
      const flag = level.find(arg);
      if (flag) {
        if (flag.required) {
          const value = args[i++];
          // commander: "option '…' argument missing".
          if (value === undefined) throw GIVE_UP;
          level.set(flag, value);
        } else if (flag.optional) {
          let value: string | null = null;
          if (i < args.length && (!maybeOption(args[i] as string) || negativeNumber(args[i] as string)))
            value = args[i++] as string;
          level.set(flag, value);
        } else level.set(flag, undefined);
        continue;
      }
    }
    // A cluster of short options ("-qv", "-ojson").
    if (arg.length > 2 && arg[0] === '-' && arg[1] !== '-') {
      const flag = level.find(`-${arg[1]}`);
      if (flag) {
        if (flag.required || flag.optional) level.set(flag, arg.slice(2));
        else {
          level.set(flag, undefined);
          activeGroup = `-${arg.slice(2)}`;
        }
        continue;
      }
    }
    if (/^--[^=]+=/.test(arg)) {
      const index = arg.indexOf('=');
      const flag = level.find(arg.slice(0, index));
      if (flag && (flag.required || flag.optional)) {
        level.set(flag, arg.slice(index + 1));
        continue;
      }
    }
    if (dest === operands && maybeOption(arg) && !(level.leaf && negativeNumber(arg))) dest = unknown;
    dest.push(arg);
  }
  return { operands, unknown };
}

/** A spec's positional arguments ("<id> [prompt...]"): how many are required, and whether the last takes the rest. */
function positionals(args: string | undefined): { required: number; max: number } {
  const words = (args ?? '').split(/\s+/).filter(Boolean);
  const variadic = words.some((w) => w.includes('...'));
  return { required: words.filter((w) => w.startsWith('<')).length, max: variadic ? Infinity : words.length };
}

/**
 * The selection commander would make for `argv`, which names `spec` (./route.ts routedSpec), or undefined when
 * commander must parse it (help, errors, anything unusual). `globals`: the program's options (src/global-options.ts).
 */
export function quickParse(
  argv: readonly string[],
  spec: CommandSpec,
  globals: readonly OptionSpec[],
): Selection | undefined {
  // Help and the version are commander's to print (the help option is not in any level's table).
  if (argv.some((a) => a === '-h' || a === '--help' || a === '--version' || a === '--')) return undefined;
  try {
    const program = new Level([...globals, { flags: '--version', description: '' }], false);
    const groups = spec.path.slice(0, -1).map(() => new Level([], false));
    const command = new Level(spec.options, true);
    const levels = [program, ...groups, command];
    // Command._parseCommand, level by level: each parses what the one above left unknown, after its operands.
    let operands: string[] = [];
    let unknown: string[] = [...argv];
    for (const [depth, level] of levels.entries()) {
      const parsed = parseOptions(level, unknown, levels.slice(0, depth).reverse());
      operands = operands.concat(parsed.operands);
      unknown = parsed.unknown;
      if (level === command) break;
      // The next word must be the next command word; anything else is commander's (unknown command, help, …).
      if (operands[0] !== spec.path[depth]) return undefined;
      operands = operands.slice(1);
    }
    // An unknown option, or a help word commander would act on.
    if (unknown.length > 0) return undefined;
    const { required, max } = positionals(spec.args);
    if (operands.length < required || operands.length > max) return undefined;
    // optsWithGlobals: the command's values, then each ancestor's over them ("globals overwrite locals").
    const merged = Object.assign({}, command.values, ...groups.reverse().map((g) => g.values), program.values);
    return {
      key: spec.path.join(' '),
      opts: { ...command.values, args: operands },
      globals: merged as GlobalOptions,
    };
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  }
}
