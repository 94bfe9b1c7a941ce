/**
 * A command: its spec (src/command.ts), its help heading and its handler. Each command file exports one
 * `defineCommand(…)`; src/cli/commands.ts lists them, and the command line, help, completion and the runner all read
 * that one list. The handler imports what it needs when it runs, so a spec stays cheap to load.
 */
import type { CommandSpec, OptionsOf } from './command.js';
import type { CommandRun, Context } from './context.js';

/** The headings `textgen --help` lists top-level commands under, in the order they are printed. */
export const HELP_GROUPS = ['Generate:', 'Embeddings and tokens:', 'Aleph Alpha tasks:', 'Inspect:', 'Setup:'] as const;
export type HelpGroup = (typeof HELP_GROUPS)[number];

/** A command as the composition root sees it: its spec, its help heading, and its handler on commander's options. */
export interface Command {
  readonly spec: CommandSpec;
  /** The heading of its top-level word in `textgen --help`. */
  readonly helpGroup: HelpGroup;
  readonly run: CommandRun;
}

/** A command with its handler as written: `handler`'s options are the spec's `OptionsOf` (test/unit/command-list.test.ts). */
export interface CommandDefinition<S extends CommandSpec, H> extends Command {
  readonly spec: S;
  readonly handler: H;
}

/**
 * One command: its spec, its help heading and its handler, typed from the spec's table (OptionsOf). This is the one
 * place commander's untyped `opts()` meets those types: the parser hands the handler exactly the keys its flags
 * declare, with the value types their syntax gives.
 */
export function defineCommand<
  const S extends CommandSpec,
  H extends (options: OptionsOf<S>, ctx: Context) => Promise<number>,
>(definition: { spec: S; helpGroup: HelpGroup; run: H }): CommandDefinition<S, H> {
  const { spec, helpGroup, run } = definition;
  return { spec, helpGroup, handler: run, run: (options, ctx) => run(options as OptionsOf<S>, ctx) };
}

/** A command's words joined by spaces, e.g. "deployment text-generate": the key a chosen command is run by. */
export function commandKey(spec: Pick<CommandSpec, 'path'>): string {
  return spec.path.join(' ');
}
