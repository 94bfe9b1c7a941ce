import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { BATCH_INTERVAL_FLAG, BATCH_SCOPE_FLAGS, BATCH_STATE_FLAG } from '../../src/options/batch-job-flag-specs.js';

const spec = {
  path: ['batch', 'wait'],
  summary: 'Wait until a provider batch (or every batch of a job) has ended',
  description:
    'Checks the status at once, then after 0.5 s, doubling up to --interval; on a terminal a progress line shows ' +
    'the counts and an ETA. Ctrl-C stops waiting, not the batches. Exit 0 when every batch completed, 4 when one ' +
    'failed, expired or was cancelled. See docs/batch.md.',
  args: '[id]',
  options: [BATCH_STATE_FLAG, BATCH_INTERVAL_FLAG, ...BATCH_SCOPE_FLAGS],
  examples: [
    'textgen --profile openai batch wait --state prompts.jsonl.batch.json',
    'textgen --profile openai batch wait batch_abc123 --interval 60',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { runWait } = await import('../../src/batch/provider/commands.js');
  return runWait(options, ctx);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
