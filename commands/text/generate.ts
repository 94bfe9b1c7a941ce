import { type CommandSpec, type OptionsOf, optionSpecs, withoutOptions } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { GRANULAR_PARAMETER_FLAGS } from '../../src/options/generate-flag-specs.js';
import { SCOPE_FLAG_SPECS } from '../../src/options/scope-flags.js';

/** cpdctl's `text generate` has the granular flags of `deployment text-generate` but prompt variables and typical_p. */
const PARAMETER_OPTIONS = withoutOptions(
  optionSpecs(GRANULAR_PARAMETER_FLAGS),
  '--parameters-prompt-variables',
  '--parameters-typical-p',
);

export const TEXT_GENERATE_OPTIONS = [
  { flags: '--model-id <id>', description: 'the foundation model (required)' },
  { flags: '--input <text>', description: 'the prompt (required)' },
  {
    flags: '--moderations <json|@file>',
    description: 'HAP/PII filters as JSON or @file, e.g. {"hap": {"input": {"enabled": true, "threshold": 0.5}}}',
  },
  {
    flags: '--parameters <json|@file>',
    description: 'all generation parameters as JSON or @file; cannot be combined with --parameters-* flags',
  },
  ...PARAMETER_OPTIONS,
  ...SCOPE_FLAG_SPECS,
] as const;

const spec = {
  path: ['text', 'generate'],
  summary: 'Generate text with a foundation model (cpdctl wx-ai text generate; watsonx)',
  description:
    'Sends POST /ml/v1/text/generation: --model-id, --input, --parameters (JSON or @file) or its granular ' +
    '--parameters-* twins (not both), --moderations. Text output prints the generated text; -o json|yaml and -j ' +
    'print the service\'s body, as cpdctl does. On another provider use "textgen complete".',
  options: TEXT_GENERATE_OPTIONS,
  examples: [
    'textgen --profile local text generate --model-id google/flan-t5-xl --input "Write a tagline for an alumni association: Together we" --parameters-max-new-tokens 20',
    'textgen --profile local -o json text generate --model-id ibm/granite-13b-instruct-v2 --input "Hello" --parameters \'{"decoding_method": "greedy", "max_new_tokens": 10}\' -j results[0].generated_text',
  ],
} as const satisfies CommandSpec;

export async function runTextGenerate(options: OptionsOf<typeof spec>, ctx: Context, stream: boolean): Promise<number> {
  const { missingFlagsError } = await import('../../src/options/input.js');
  const missing = [
    ...(options.modelId === undefined || options.modelId === '' ? ['--model-id'] : []),
    ...(options.input === undefined ? ['--input'] : []),
  ];
  if (missing.length > 0) throw missingFlagsError(missing);
  const { scopedContext } = await import('../../src/options/scope-resolve.js');
  const { runGenerationCommand } = await import('../../src/generation/generation-command.js');
  return runGenerationCommand(scopedContext(ctx, options), {
    raw: options,
    target: { kind: 'model', model: options.modelId },
    stream,
    mirror: { name: stream ? 'generate-stream' : 'generate' },
  });
}

function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  return runTextGenerate(options, ctx, false);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
