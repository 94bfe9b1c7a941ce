import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { BATCH_SCOPE_FLAGS, BATCH_STATE_FLAG } from '../../src/options/batch-job-flag-specs.js';

const spec = {
  path: ['batch', 'cancel'],
  summary: 'Cancel a provider batch, or every unfinished batch of a job (finished work is kept)',
  description:
    'Asks the service to cancel; it goes through cancelling to cancelled. What was done before is kept and ' +
    'batch results fetches it (the lines that never ran get error records). See docs/batch.md.',
  args: '[id]',
  options: [BATCH_STATE_FLAG, ...BATCH_SCOPE_FLAGS],
  examples: [
    'textgen --profile openai batch cancel --state prompts.jsonl.batch.json',
    'textgen --profile openai batch cancel batch_abc123',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { runCancel } = await import('../../src/batch/provider/commands.js');
  return runCancel(options, ctx);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
