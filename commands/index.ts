/**
 * The one place that lists commands, in help order: each command's spec (names, flags, help), and nothing else.
 * Specs are plain data, so building the command line and printing help loads no handler; the handlers are looked
 * up by command path in ./handlers.ts only once a command has been chosen (docs/performance.md).
 */
import type { CommandSpec } from '../src/command.js';
import { spec as textGenerate } from './deployment/text-generate.js';
import { spec as textGenerateStream } from './deployment/text-generate-stream.js';
import { spec as complete } from './complete.js';
import { spec as chat } from './chat.js';
import { spec as models } from './models.js';
import { spec as health } from './health.js';
import { spec as evaluate } from './evaluate.js';
import { spec as explain } from './explain.js';
import { spec as qa } from './qa.js';
import { spec as summarize } from './summarize.js';
import { spec as tokenize } from './tokenize.js';
import { spec as detokenize } from './detokenize.js';
import { spec as embed } from './embed.js';
import { spec as serve } from './serve.js';
import { spec as profilesList } from './profiles/list.js';
import { spec as profilesShow } from './profiles/show.js';
import { spec as profilesAdd } from './profiles/add.js';
import { spec as profilesRemove } from './profiles/remove.js';
import { spec as profilesUse } from './profiles/use.js';
import { spec as trust } from './trust.js';
import { spec as completion } from './completion.js';
import { spec as batchMerge } from './batch/merge.js';

export const COMMAND_SPECS: readonly CommandSpec[] = [
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
];

/** A command's words joined by spaces, e.g. "deployment text-generate": how handlers.ts finds its handler. */
export function commandKey(spec: Pick<CommandSpec, 'path'>): string {
  return spec.path.join(' ');
}
