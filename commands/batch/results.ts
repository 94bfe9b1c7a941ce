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
  path: ['batch', 'results'],
  summary: "Download a provider batch's answers as textgen's batch records, in input order",
  description:
    'Waits for the batches still running, downloads the output and error files and writes one record per input ' +
    'line, as --batch writes them ({"line", "id"?, "result"} or {..., "error"}), in input order; a line its batch ' +
    'never ran (cancelled, expired) gets an error record. With --state the input is read again to match the ' +
    'answers to its lines; with ID, --input FILE does that (else line-N custom_ids give the order). Exit 0 when ' +
    'every line succeeded, 4 when some failed. See docs/batch.md.',
  args: '[id]',
  options: [
    BATCH_STATE_FLAG,
    ...BATCH_RESULT_FLAGS,
    { flags: '--input <file>', description: 'with ID: the submitted file, to write the records in its order' },
    BATCH_INTERVAL_FLAG,
    ...BATCH_SCOPE_FLAGS,
  ],
  examples: [
    'textgen --profile openai batch results --state prompts.jsonl.batch.json --out out.jsonl',
    'textgen --profile openai batch results batch_abc123 | jq .result.choices[0].message.content',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { runResults } = await import('../../src/batch/provider/commands.js');
  return runResults(options, ctx);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
