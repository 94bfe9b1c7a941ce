import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import {
  BATCH_INTERVAL_FLAG,
  BATCH_RESULT_FLAGS,
  BATCH_SCOPE_FLAGS,
  BATCH_STATE_FLAG,
} from '../../src/options/batch-job-flag-specs.js';

const spec = {
  path: ['batch', 'submit'],
  summary: "Hand a JSONL file to the provider's batch service (OpenAI, Azure OpenAI, watsonx.ai)",
  description:
    "FILE holds the lines --batch takes (for --endpoint completions, chat or embeddings) or lines in the provider's " +
    'format ({"custom_id", "method", "url", "body"}). Every line is checked first, with the errors --batch --dry-run ' +
    "gives, and nothing is uploaded if one would fail. A file over the service's limits (OpenAI: 50 000 lines or " +
    '200 MB) is split into several batches tracked as one job in the state file, so wait and results carry on after ' +
    'a kill, and a second submit of the same input refuses instead of paying twice. Prints the batch id (-o json: ' +
    'the batch object); --wait waits and writes the records. See docs/batch.md "At the provider".',
  args: '<file>',
  options: [
    {
      flags: '--endpoint <kind>',
      description:
        'what each line is: completions (complete), chat or embeddings (embed); default from the lines, else completions',
      choices: ['completions', 'chat', 'embeddings'],
    },
    { flags: '-m, --model <name>', description: 'the model (Azure: the deployment) every line runs on' },
    { flags: '--window <window>', description: 'the completion window (default 24h)' },
    { flags: '--metadata <key=value>', description: 'a metadata entry of the batch (repeatable)', repeatable: true },
    BATCH_STATE_FLAG,
    { flags: '--max-lines <n>', description: "at most N lines a batch (below the service's limit): split sooner" },
    { flags: '--max-bytes <n>', description: "at most N bytes a batch file (below the service's limit): split sooner" },
    { flags: '--wait [bool]', description: 'wait for the batches to end, then write the records as results does' },
    BATCH_INTERVAL_FLAG,
    ...BATCH_RESULT_FLAGS,
    ...BATCH_SCOPE_FLAGS,
  ],
  examples: [
    'textgen --profile openai batch submit prompts.jsonl --endpoint chat -m gpt-4o-mini',
    'textgen --profile wx batch submit prompts.jsonl -m ibm/granite-13b-instruct-v2 --space-id SPACE --wait --out out.jsonl',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { runSubmit } = await import('../../src/batch/provider/commands.js');
  return runSubmit(options, ctx);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
