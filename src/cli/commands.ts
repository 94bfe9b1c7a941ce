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
import { command as rerank } from '../../commands/rerank.js';
import { command as textGenerateModel } from '../../commands/text/generate.js';
import { command as textGenerateModelStream } from '../../commands/text/generate-stream.js';
import { command as textChat } from '../../commands/text/chat.js';
import { command as textChatStream } from '../../commands/text/chat-stream.js';
import { command as textEmbeddings } from '../../commands/text/calculate-embeddings.js';
import { command as textRerank } from '../../commands/text/rerank.js';
import { command as textTokenize } from '../../commands/text/tokenize.js';
import { command as serve } from '../../commands/serve.js';
import { command as profilesList } from '../../commands/profiles/list.js';
import { command as profilesShow } from '../../commands/profiles/show.js';
import { command as profilesAdd } from '../../commands/profiles/add.js';
import { command as profilesRemove } from '../../commands/profiles/remove.js';
import { command as profilesUse } from '../../commands/profiles/use.js';
import { command as trust } from '../../commands/trust.js';
import { command as completion } from '../../commands/completion.js';
import { command as batchMerge } from '../../commands/batch/merge.js';
import { command as deploymentChat } from '../../commands/deployment/chat.js';
import { command as deploymentChatStream } from '../../commands/deployment/chat-stream.js';
import { command as deploymentList } from '../../commands/deployment/list.js';
import { command as deploymentGet } from '../../commands/deployment/get.js';
import { command as foundationModelListModels } from '../../commands/foundation-model/list-models.js';
import { command as foundationModelListTasks } from '../../commands/foundation-model/list-tasks.js';
import { command as timeSeriesForecast } from '../../commands/time-series/forecast.js';

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
  rerank,
  textGenerateModel,
  textGenerateModelStream,
  textChat,
  textChatStream,
  textEmbeddings,
  textRerank,
  textTokenize,
  serve,
  profilesList,
  profilesShow,
  profilesAdd,
  profilesRemove,
  profilesUse,
  trust,
  completion,
  batchMerge,
  deploymentChat,
  deploymentChatStream,
  deploymentList,
  deploymentGet,
  foundationModelListModels,
  foundationModelListTasks,
  timeSeriesForecast,
] as const satisfies readonly Command[];

/** The descriptions of the words that only group commands (`textgen deployment --help`). */
export const COMMAND_GROUPS: Readonly<Record<string, string>> = {
  deployment: 'Generate, chat and list deployments (mirrors cpd-cli wx-ai deployment)',
  profiles: 'Manage connection profiles in the user config file',
  batch: 'Work with the output files of --batch runs (docs/batch.md)',
  text: 'Foundation-model inference on watsonx, flag for flag (mirrors cpdctl wx-ai text)',
  'foundation-model': 'List the foundation models and their tasks (mirrors cpd-cli wx-ai foundation-model)',
  'time-series': 'Forecast time series (mirrors cpd-cli wx-ai time-series)',
};

/** Every command's spec, in list order. */
export const COMMAND_SPECS: readonly CommandSpec[] = COMMANDS.map((c) => c.spec);

/** The command a selection's key names (src/define-command.ts commandKey). */
export function commandFor(key: string): Command | undefined {
  return (COMMANDS as readonly Command[]).find((c) => c.spec.path.join(' ') === key);
}
