/**
 * Each command's handler, by command path (the keys of ./index.ts). Loaded only once a command has been chosen:
 * the command line and help are built from the specs alone. A unit test (test/unit/command-list.test.ts) checks
 * that every spec has its handler here and nothing else is.
 */
import type { CommandSpec, OptionsOf } from '../src/command.js';
import type { CommandRun, Context } from '../src/context.js';
import { run as textGenerate } from './deployment/text-generate.js';
import { run as textGenerateStream } from './deployment/text-generate-stream.js';
import { run as complete } from './complete.js';
import { run as chat } from './chat.js';
import { run as models } from './models.js';
import { run as health } from './health.js';
import { run as evaluate } from './evaluate.js';
import { run as explain } from './explain.js';
import { run as qa } from './qa.js';
import { run as summarize } from './summarize.js';
import { run as tokenize } from './tokenize.js';
import { run as detokenize } from './detokenize.js';
import { run as embed } from './embed.js';
import { run as serve } from './serve.js';
import { run as profilesList } from './profiles/list.js';
import { run as profilesShow } from './profiles/show.js';
import { run as profilesAdd } from './profiles/add.js';
import { run as profilesRemove } from './profiles/remove.js';
import { run as profilesUse } from './profiles/use.js';
import { runCompletion as completion } from '../src/completion/command.js';
import { run as batchMerge, spec as batchMergeSpec } from './batch/merge.js';

/**
 * A handler typed from its spec's table (OptionsOf), as every handler is to become: the parser hands it exactly
 * the keys its flags declare (test/unit/command-list.test.ts checks the derived keys against commander's).
 */
function typed<S extends CommandSpec>(
  _spec: S,
  run: (options: OptionsOf<S>, ctx: Context) => Promise<number>,
): CommandRun {
  return (options, ctx) => run(options as OptionsOf<S>, ctx);
}

export const HANDLERS: Readonly<Record<string, CommandRun>> = {
  'deployment text-generate': (options, ctx) => textGenerate(options, ctx),
  'deployment text-generate-stream': textGenerateStream,
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
  'profiles list': profilesList,
  'profiles show': profilesShow,
  'profiles add': profilesAdd,
  'profiles remove': profilesRemove,
  'profiles use': profilesUse,
  completion,
  'batch merge': typed(batchMergeSpec, batchMerge),
};
