/**
 * The shape of a command's spec: plain data, cheap to import (src/define-command.ts puts it together with its help
 * heading and handler). `src/cli/program.ts` turns specs into commander commands; the handler receives the parsed
 * options and a Context.
 */
export interface OptionSpec {
  /** commander flags, e.g. "--parameters-top-k <int>" or "--stream [bool]". */
  flags: string;
  description: string;
  /** Repeatable: values are collected into an array. */
  repeatable?: boolean;
  /** Hidden from help (aliases). */
  hidden?: boolean;
  /**
   * The closed set of values the flag takes, when it has one: shell completion offers these words (the help's
   * placeholder need not list them). The command checks against the same list, so the two cannot drift.
   */
  choices?: readonly string[];
}

export interface CommandSpec {
  /** Command words, e.g. ["deployment", "text-generate"]. */
  path: readonly string[];
  summary: string;
  /** Paragraphs, wrapped once by the help printer: a line break only between paragraphs or before an indented example. */
  description?: string;
  /** Positional arguments in commander syntax, e.g. "[prompt...]". */
  args?: string;
  options: readonly OptionSpec[];
  examples: readonly string[];
}

/** The long name of a flag ("-m, --model <name>" → "model"). */
type LongName<F extends string> = F extends `${string}--${infer Rest}`
  ? Rest extends `${infer Name} ${string}`
    ? Name
    : Rest
  : never;
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;
/** The key commander stores a flag's value under: the long name in camelCase, "--no-x" under "x". */
export type OptionKey<F extends string> =
  LongName<F> extends `no-${infer Name}` ? CamelCase<Name> : CamelCase<LongName<F>>;
/** What commander stores: a string for "<value>" (an array when repeatable), the string or true for "[value]", else a boolean. */
type OptionValue<O extends OptionSpec> = O['flags'] extends `${string}<${string}>${string}`
  ? O extends { repeatable: true }
    ? string[]
    : string
  : O['flags'] extends `${string}[${string}]${string}`
    ? string | true
    : boolean;

/**
 * The options a handler receives, derived from its spec's table (declare the spec `as const satisfies CommandSpec`):
 * each flag under its commander key, absent when not given, and the positional words as `args`.
 * test/unit/command-list.test.ts checks the derived keys against commander's own for every spec.
 */
export type OptionsOf<S extends Pick<CommandSpec, 'options'>> = OptionValues<S['options']> & { args: string[] };

/** The values commander stores for a table of options: each flag under its key, absent when not given. */
export type OptionValues<T extends readonly OptionSpec[]> = {
  [O in T[number] as OptionKey<O['flags']>]?: OptionValue<O>;
};

/** What commander stores a flag under, at run time (OptionKey is the same rule for the type checker). */
export function optionKey<F extends string>(flags: F): OptionKey<F> {
  const long = /--([A-Za-z0-9-]+)/.exec(flags)?.[1] ?? '';
  return long.replace(/^no-/, '').replace(/-([a-zA-Z0-9])/g, (_m, c: string) => c.toUpperCase()) as OptionKey<F>;
}

/** The long flag of an option ("-m, --model <name>" → "--model"). */
export function longFlag(flags: string): string {
  return /--[A-Za-z0-9-]+/.exec(flags)?.[0] ?? flags;
}

/** An option whose long flag is L, whatever its short form and value placeholder. */
type WithLongFlag<L extends string> = {
  flags: L | `${L} ${string}` | `${string}, ${L}` | `${string}, ${L} ${string}`;
};

/** A shared table without some of its flags, keeping the types of the rest (Array.filter would widen them). */
export function withoutOptions<T extends readonly OptionSpec[], L extends `--${string}`>(
  options: T,
  ...drop: readonly L[]
): Exclude<T[number], WithLongFlag<L>>[] {
  return options.filter((o) => !(drop as readonly string[]).includes(longFlag(o.flags))) as Exclude<
    T[number],
    WithLongFlag<L>
  >[];
}

/**
 * A flag declared once with what else it needs (a parameter mapping, say): the parts of its command-line form and
 * its help. `optionSpecs` turns a table of them into the command's options.
 */
export interface DeclaredFlag {
  /** The long flag, e.g. "--temperature". */
  flag: string;
  /** A short form, e.g. "-t". */
  short?: string;
  /** The value placeholder in help, e.g. "<int>" or "[n]"; none for a switch. */
  arg?: string;
  /** The help line: declared here, with the rest, and nowhere else. */
  description: string;
  repeatable?: boolean;
}

/** The commander flags of a declared flag, as a literal type ("-t, --temperature <x>"). */
type FlagsOf<F extends DeclaredFlag> =
  `${F extends { short: infer S extends string } ? `${S}, ` : ''}${F['flag']}${F extends {
    arg: infer A extends string;
  }
    ? ` ${A}`
    : ''}`;
type DeclaredOptionSpec<F extends DeclaredFlag> = {
  readonly flags: FlagsOf<F>;
  readonly description: string;
} & (F extends {
  repeatable: true;
}
  ? { readonly repeatable: true }
  : unknown);

type DeclaredOptionSpecs<T extends readonly DeclaredFlag[]> = {
  readonly [I in keyof T]: T[I] extends DeclaredFlag ? DeclaredOptionSpec<T[I]> : never;
};

/** The options of a table of declared flags, in its order, each typed from its row (so OptionsOf sees its key). */
export function optionSpecs<const T extends readonly DeclaredFlag[]>(table: T): DeclaredOptionSpecs<T> {
  return table.map((f) => ({
    flags: `${f.short !== undefined ? `${f.short}, ` : ''}${f.flag}${f.arg !== undefined ? ` ${f.arg}` : ''}`,
    description: f.description,
    ...(f.repeatable === true ? { repeatable: true } : {}),
  })) as unknown as DeclaredOptionSpecs<T>;
}
