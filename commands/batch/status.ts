import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { BATCH_SCOPE_FLAGS, BATCH_STATE_FLAG } from '../../src/options/batch-job-flag-specs.js';

const spec = {
  path: ['batch', 'status'],
  summary: 'Show the state and request counts of a provider batch, or of every batch of a job',
  description:
    'ID is one batch; --state FILE is the job batch submit wrote (one line per batch, and the state file brought up ' +
    'to date). -o json prints the batch object (a job: {state, input, batches}). Exit 0. See docs/batch.md.',
  args: '[id]',
  options: [BATCH_STATE_FLAG, ...BATCH_SCOPE_FLAGS],
  examples: [
    'textgen --profile openai batch status batch_abc123',
    'textgen --profile openai batch status --state prompts.jsonl.batch.json',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { runStatus } = await import('../../src/batch/provider/commands.js');
  return runStatus(options, ctx);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
