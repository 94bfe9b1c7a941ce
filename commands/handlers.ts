/**
 * Each command's handler, by command path (the keys of ./index.ts). Loaded only once a command has been chosen:
 * the command line and help are built from the specs alone. A unit test (test/unit/command-list.test.ts) checks
 * that every spec has its handler here and nothing else is.
 */
import type { CommandSpec, OptionsOf } from '../src/command.js';
import type { CommandRun, Context } from '../src/context.js';
import { run as textGenerate, spec as textGenerateSpec } from './deployment/text-generate.js';
import { run as textGenerateStream, spec as textGenerateStreamSpec } from './deployment/text-generate-stream.js';
import { run as complete, spec as completeSpec } from './complete.js';
import { run as chat, spec as chatSpec } from './chat.js';
import { run as models, spec as modelsSpec } from './models.js';
import { run as health, spec as healthSpec } from './health.js';
import { run as evaluate, spec as evaluateSpec } from './evaluate.js';
import { run as explain, spec as explainSpec } from './explain.js';
import { run as qa, spec as qaSpec } from './qa.js';
import { run as summarize, spec as summarizeSpec } from './summarize.js';
import { run as tokenize, spec as tokenizeSpec } from './tokenize.js';
import { run as detokenize, spec as detokenizeSpec } from './detokenize.js';
import { run as embed, spec as embedSpec } from './embed.js';
import { run as serve, spec as serveSpec } from './serve.js';
import { run as profilesList, spec as profilesListSpec } from './profiles/list.js';
import { run as profilesShow, spec as profilesShowSpec } from './profiles/show.js';
import { run as profilesAdd, spec as profilesAddSpec } from './profiles/add.js';
import { run as profilesRemove, spec as profilesRemoveSpec } from './profiles/remove.js';
import { run as profilesUse, spec as profilesUseSpec } from './profiles/use.js';
import { run as trust, spec as trustSpec } from './trust.js';
import { runCompletion as completion } from '../src/completion/command.js';
import { spec as completionSpec } from './completion.js';
import { run as batchMerge, spec as batchMergeSpec } from './batch/merge.js';

/** A command's handler with the spec its options are typed from; only `typed` makes one. */
export interface TypedHandler {
  readonly spec: CommandSpec;
  readonly run: CommandRun;
}

/**
 * A handler typed from its spec's table (OptionsOf): the parser hands it exactly the keys its flags declare, with
 * the value types their syntax gives. This is the one place commander's untyped `opts()` meets those types;
 * test/unit/command-list.test.ts checks the derived keys against commander's, and that each entry's spec is the
 * one listed under its key.
 */
function typed<S extends CommandSpec>(
  spec: S,
  run: (options: OptionsOf<S>, ctx: Context) => Promise<number>,
): TypedHandler {
  return { spec, run: (options, ctx) => run(options as OptionsOf<S>, ctx) };
}

export const HANDLERS: Readonly<Record<string, TypedHandler>> = {
  'deployment text-generate': typed(textGenerateSpec, (options, ctx) => textGenerate(options, ctx)),
  'deployment text-generate-stream': typed(textGenerateStreamSpec, textGenerateStream),
  complete: typed(completeSpec, complete),
  chat: typed(chatSpec, chat),
  models: typed(modelsSpec, models),
  health: typed(healthSpec, health),
  evaluate: typed(evaluateSpec, evaluate),
  explain: typed(explainSpec, explain),
  qa: typed(qaSpec, qa),
  summarize: typed(summarizeSpec, summarize),
  tokenize: typed(tokenizeSpec, tokenize),
  detokenize: typed(detokenizeSpec, detokenize),
  embed: typed(embedSpec, embed),
  serve: typed(serveSpec, serve),
  'profiles list': typed(profilesListSpec, profilesList),
  'profiles show': typed(profilesShowSpec, profilesShow),
  'profiles add': typed(profilesAddSpec, profilesAdd),
  'profiles remove': typed(profilesRemoveSpec, profilesRemove),
  'profiles use': typed(profilesUseSpec, profilesUse),
  trust: typed(trustSpec, trust),
  completion: typed(completionSpec, completion),
  'batch merge': typed(batchMergeSpec, batchMerge),
};
