/**
 * The shape of a command (STYLE.md): plain data, cheap to import, plus a lazily loaded `run`.
 * `src/cli.ts` turns these into commander commands; `run` receives the parsed options and a Context.
 */
export interface OptionSpec {
  /** commander flags, e.g. "--parameters-top-k <int>" or "--stream [bool]". */
  flags: string;
  description: string;
  /** Repeatable: values are collected into an array. */
  repeatable?: boolean;
  /** Hidden from help (aliases). */
  hidden?: boolean;
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
export type OptionsOf<S extends Pick<CommandSpec, 'options'>> = {
  [O in S['options'][number] as OptionKey<O['flags']>]?: OptionValue<O>;
} & { args: string[] };
