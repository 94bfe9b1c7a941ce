import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { BATCH_SCOPE_FLAGS } from '../../src/options/batch-job-flag-specs.js';

const spec = {
  path: ['batch', 'list'],
  summary: "List the account's batches at the provider, newest first, a page at a time",
  description:
    'A table (ID, STATUS, ENDPOINT, CREATED, DONE, FAILED); -o json the batch objects. One page of --limit batches ' +
    '(default 20); stderr names the --after cursor of the next page; --all reads every page. See docs/batch.md.',
  options: [
    { flags: '--limit <n>', description: 'batches a page (1 to 100, default 20)' },
    { flags: '--after <id>', description: 'the page after this batch id (the cursor the last page named)' },
    { flags: '--all [bool]', description: 'read every page' },
    ...BATCH_SCOPE_FLAGS,
  ],
  examples: ['textgen --profile openai batch list', 'textgen --profile openai batch list --all -o json'],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { runList } = await import('../../src/batch/provider/commands.js');
  return runList(options, ctx);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
