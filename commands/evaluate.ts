import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';
import { MODEL_OPTION, NICE_OPTION, PROMPT_OPTIONS } from '../src/flows/task-flag-specs.js';

const spec = {
  path: ['evaluate'],
  summary: 'Score how likely a model is to produce an expected completion (Aleph Alpha)',
  description:
    'Prints the log probability of --expected after the prompt, the perplexity per token, and whether ' +
    "greedy decoding would produce it. -o json gives the service's result object (POST /evaluate).",
  options: [
    MODEL_OPTION,
    ...PROMPT_OPTIONS,
    { flags: '--expected <text>', description: 'the completion to score (completion_expected); may be empty' },
    NICE_OPTION,
  ],
  examples: [
    'textgen --profile local-aa evaluate --prompt "An apple a day" --expected " keeps the doctor away."',
    'textgen --profile local-aa evaluate -m luminous-base --prompt "The capital of France is" --expected " Paris" -o json',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { missingFlagsError } = await import('../src/options/input.js');
  const t = await import('../src/flows/task-options.js');
  const { runTask } = await import('../src/flows/run-task.js');
  const expected = options.expected;
  if (expected === undefined) throw missingFlagsError(['--expected']);
  const nice = t.niceFlag(options);
  const io = t.fileIo(ctx);
  return runTask(ctx, 'evaluate', async (profile) => ({
    model: t.modelFor(options, profile),
    prompt: await t.promptFrom(options, ctx, io, profile),
    expected,
    nice,
  }));
}

export const command = defineCommand({ spec, helpGroup: 'Aleph Alpha tasks:', run });
