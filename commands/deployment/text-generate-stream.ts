import { type CommandSpec, type OptionsOf, withoutOptions } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { GENERATE_FLAG_SPECS } from '../../src/options/generate-flag-specs.js';
import { BATCH_FLAG_SPECS } from '../../src/options/batch-flag-specs.js';
import { SPACE_SCOPE_FLAG_SPECS } from '../../src/options/scope-flags.js';
import { runTextGenerate } from './text-generate.js';

const spec = {
  path: ['deployment', 'text-generate-stream'],
  summary: 'Same as text-generate, streaming tokens as they are generated (cpd-cli has both)',
  description:
    'Takes every flag of deployment text-generate; streaming is on whatever --stream says. Text output ' +
    'prints the text as it arrives; -o jsonl prints one JSON object per streamed event; -o json waits ' +
    'and prints the events put together into one result. With --batch FILE.jsonl the lines are ' +
    'generated whole (not streamed) and printed as JSONL records, exactly as deployment text-generate ' +
    '--batch does (docs/batch.md).',
  options: [...withoutOptions(GENERATE_FLAG_SPECS, '--stream'), ...BATCH_FLAG_SPECS, ...SPACE_SCOPE_FLAG_SPECS],
  examples: [
    'textgen --profile local deployment text-generate-stream --id-or-name demo --input "Once upon a time"',
    'textgen --profile local deployment text-generate-stream --id-or-name demo --input Hi --parameters-max-new-tokens 10 -o jsonl',
    'echo \'"Once upon a time"\' | textgen --profile local deployment text-generate-stream --id-or-name demo --batch - --concurrency 8',
  ],
} as const satisfies CommandSpec;

/** Its options are text-generate's without --stream, so they are what text-generate's handler takes. */
function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  return runTextGenerate(options, ctx, { forceStream: true });
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
