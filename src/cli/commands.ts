/**
 * The one list of commands, in the order shell completion lists them: each command file's definition (spec, help
 * heading, handler). The command line, help, completion, the runner and test/unit/command-list.test.ts all read it.
 * Specs are plain data and a handler imports what it needs when it runs, so building the command line and printing
 * help runs no handler; the parser's bundle leaves the handlers' imports out (scripts/bundle.mjs).
 */
import type { CommandSpec } from '../command.js';
import type { Command } from '../define-command.js';
import { command as textGenerate } from '../../commands/deployment/text-generate.js';
import { command as textGenerateStream } from '../../commands/deployment/text-generate-stream.js';
import { command as complete } from '../../commands/complete.js';
import { command as chat } from '../../commands/chat.js';
import { command as models } from '../../commands/models.js';
import { command as health } from '../../commands/health.js';
import { command as evaluate } from '../../commands/evaluate.js';
import { command as explain } from '../../commands/explain.js';
import { command as qa } from '../../commands/qa.js';
import { command as summarize } from '../../commands/summarize.js';
import { command as tokenize } from '../../commands/tokenize.js';
import { command as detokenize } from '../../commands/detokenize.js';
import { command as embed } from '../../commands/embed.js';
import { command as serve } from '../../commands/serve.js';
import { command as profilesList } from '../../commands/profiles/list.js';
import { command as profilesShow } from '../../commands/profiles/show.js';
import { command as profilesAdd } from '../../commands/profiles/add.js';
import { command as profilesRemove } from '../../commands/profiles/remove.js';
import { command as profilesUse } from '../../commands/profiles/use.js';
import { command as trust } from '../../commands/trust.js';
import { command as completion } from '../../commands/completion.js';
import { command as batchMerge } from '../../commands/batch/merge.js';
import { command as cassetteLs } from '../../commands/cassette/ls.js';
import { command as cassetteShow } from '../../commands/cassette/show.js';
import { command as cassettePrune } from '../../commands/cassette/prune.js';

export const COMMANDS = [
  textGenerate,
  textGenerateStream,
  complete,
  chat,
  models,
  health,
  evaluate,
  explain,
  qa,
  summarize,
  tokenize,
  detokenize,
  embed,
  serve,
  profilesList,
  profilesShow,
  profilesAdd,
  profilesRemove,
  profilesUse,
  trust,
  completion,
  batchMerge,
  cassetteLs,
  cassetteShow,
  cassettePrune,
] as const satisfies readonly Command[];

/** The descriptions of the words that only group commands (`textgen deployment --help`). */
export const COMMAND_GROUPS: Readonly<Record<string, string>> = {
  deployment: 'Generate text with a deployment (mirrors cpd-cli wx-ai deployment)',
  profiles: 'Manage connection profiles in the user config file',
  batch: 'Work with the output files of --batch runs (docs/batch.md)',
  cassette: 'List, show and prune --record/--replay cassettes (docs/cassettes.md)',
};

/** Every command's spec, in list order. */
export const COMMAND_SPECS: readonly CommandSpec[] = COMMANDS.map((c) => c.spec);

/** The command a selection's key names (src/define-command.ts commandKey). */
export function commandFor(key: string): Command | undefined {
  return (COMMANDS as readonly Command[]).find((c) => c.spec.path.join(' ') === key);
}
