import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { runTextGenerate, TEXT_GENERATE_OPTIONS } from './generate.js';

const spec = {
  path: ['text', 'generate-stream'],
  summary: 'Same as text generate, streaming tokens as they are generated (cpdctl wx-ai text generate-stream)',
  description:
    'Sends POST /ml/v1/text/generation_stream with every flag of text generate. Text output prints the text as ' +
    "it arrives; -o json|yaml prints the service's events, -o jsonl one per line.",
  options: TEXT_GENERATE_OPTIONS,
  examples: [
    'textgen --profile local text generate-stream --model-id google/flan-t5-xl --input "Once upon a time" --parameters-max-new-tokens 30',
    'textgen --profile local -o jsonl text generate-stream --model-id google/flan-t5-xl --input "Hi" --parameters-max-new-tokens 5',
  ],
} as const satisfies CommandSpec;

function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  return runTextGenerate(options, ctx, true);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
