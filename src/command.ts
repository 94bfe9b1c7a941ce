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
  path: string[];
  summary: string;
  description?: string;
  /** Positional arguments in commander syntax, e.g. "[prompt...]". */
  args?: string;
  options: OptionSpec[];
  examples: string[];
}
