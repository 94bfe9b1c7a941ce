import { type CommandSpec, type OptionsOf, optionSpecs } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import { SCOPE_FLAG_SPECS } from '../../src/options/scope-flags.js';
import type { Context } from '../../src/context.js';
import { TEXT_EMBEDDINGS_FLAGS } from '../../src/flows/text-flag-specs.js';

const spec = {
  path: ['text', 'calculate-embeddings'],
  summary: 'Embed texts with a foundation model (cpdctl wx-ai text calculate-embeddings; watsonx)',
  description:
    "Sends POST /ml/v1/text/embeddings with the body the flags write and prints the service's answer " +
    '(JSON; -o yaml, -j). --parameters takes inline JSON or @file; its fields --parameters-truncate-input-tokens ' +
    'and --parameters-return-options cannot be combined with it. On another provider use "textgen embed".',
  options: [...optionSpecs(TEXT_EMBEDDINGS_FLAGS), ...SCOPE_FLAG_SPECS],
  examples: [
    'textgen --profile local text calculate-embeddings --model-id ibm/slate-30m-english-rtrvr --inputs "Youth craves thrills while adulthood cherishes wisdom." -j "results[0].embedding | length(@)"',
    'textgen --profile local -o yaml text calculate-embeddings --model-id ibm/slate-30m-english-rtrvr --inputs "first text,second text" --parameters-return-options \'{"input_text": true}\' -j "results[*].input"',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { runTextCall } = await import('../../src/flows/run-text.js');
  return runTextCall(ctx, {
    name: 'calculate-embeddings',
    friendly: 'embed',
    route: 'text/embeddings',
    rows: TEXT_EMBEDDINGS_FLAGS,
    // The table's keys are the options' keys; the body builder reads them by row.
    options: options as Record<string, string | boolean | string[] | undefined>,
  });
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
