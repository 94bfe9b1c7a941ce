/** What passes between the command-line parser (./cli.ts), the runner (./execute.ts) and the entry points: types only. */
import type { GlobalOptions } from '../global-options.js';

export interface MainOptions {
  /** Install SIGINT handling (the real process only; tests run in-process without it). */
  handleSignals?: boolean;
}

/** The command the command line chose, with its parsed options: all `executeCommand` (./execute.ts) needs. */
export interface Selection {
  /** The command's words, e.g. "deployment text-generate" (the key of commands/handlers.ts). */
  key: string;
  opts: Record<string, unknown>;
  globals: GlobalOptions;
}

/** Either the exit code (help, version, a usage error commander has printed) or the command to run. */
export type ParseOutcome = { exitCode: number } | { selection: Selection };
