import { type CommandSpec, type OptionsOf, optionSpecs } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import { SCOPE_FLAG_SPECS } from '../../src/options/scope-flags.js';
import type { Context } from '../../src/context.js';
import { TEXT_TOKENIZE_FLAGS } from '../../src/flows/text-flag-specs.js';

const spec = {
  path: ['text', 'tokenize'],
  summary: "Tokenize a text with a model's tokenizer (cpdctl wx-ai text tokenize; watsonx)",
  description:
    "Sends POST /ml/v1/text/tokenization with the body the flags write and prints the service's answer " +
    '(JSON; -o yaml, -j). --parameters takes inline JSON or @file; --parameters-return-tokens is its field and ' +
    'cannot be combined with it. On another provider use "textgen tokenize".',
  options: [...optionSpecs(TEXT_TOKENIZE_FLAGS), ...SCOPE_FLAG_SPECS],
  examples: [
    'textgen --profile local text tokenize --model-id google/flan-t5-xl --input "Write a tagline for an alumni association: Together we" --parameters-return-tokens',
    'textgen --profile local text tokenize --model-id ibm/granite-3-8b-instruct --input "Hello world" --parameters \'{"return_tokens": false}\' -j result.token_count',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { runTextCall } = await import('../../src/flows/run-text.js');
  return runTextCall(ctx, {
    name: 'tokenize',
    friendly: 'tokenize',
    route: 'text/tokenization',
    rows: TEXT_TOKENIZE_FLAGS,
    // The table's keys are the options' keys; the body builder reads them by row.
    options: options as Record<string, string | boolean | string[] | undefined>,
  });
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
