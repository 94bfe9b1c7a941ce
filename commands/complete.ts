import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';
import type { GenerationCommand } from '../src/generation/generation-command.js';
import { COMPLETE_OPTION_SPECS } from '../src/options/complete-flag-specs.js';
import { BATCH_FLAG_SPECS } from '../src/options/batch-flag-specs.js';

const spec = {
  path: ['complete'],
  summary: 'Generate text from a prompt with short flags, against any provider',
  description:
    'The prompt is the words after the command, --input-file (- for stdin), or piped stdin. Streams by ' +
    'default on a terminal. The flags map to the same canonical parameters as deployment text-generate.\n\n' +
    'Batch: --batch FILE.jsonl (- for stdin) runs one completion per line and prints one JSONL record ' +
    'per line in input order ({"line", "id"?, "result"} or {"line", "id"?, "error"}); never streamed. ' +
    'See docs/batch.md, e.g.:\n' +
    '  textgen --profile local complete -m demo --max-tokens 20 --batch prompts.jsonl --concurrency 16 ' +
    '> out.jsonl',
  args: '[prompt...]',
  options: [...COMPLETE_OPTION_SPECS, ...BATCH_FLAG_SPECS],
  examples: [
    'textgen --profile local complete -m ibm/granite-13b-instruct-v2 "Write a haiku about rivers"',
    'textgen --profile local-azure complete -m gpt-35-turbo-instruct --max-tokens 40 -t 0.2 Once upon a time',
    'echo \'{"input":"Write a haiku","parameters":{"temperature":0.2}}\' | textgen --profile local complete -m ibm/granite-13b-instruct-v2 --batch - -j "results[0].generated_text"',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { COMPLETE_PARAMETER_FLAGS } = await import('../src/options/complete-flag-specs.js');
  const { runGenerationCommand } = await import('../src/generation/generation-command.js');
  const { parseBatchSettings } = await import('../src/options/batch-settings.js');
  const { parseIntegerFlag } = await import('../src/options/integer-flag.js');
  const batch = parseBatchSettings(options);

  // The builder reads --greedy and --logprobs/--echo under the synthetic keys of COMPLETE_PARAMETER_FLAGS, built
  // here from the flags' own values: keys no spec declares, hence the record half of GenerationCommand['raw'].
  const raw: GenerationCommand['raw'] = { ...options };
  if (options.greedy === true) raw.decodingMethodFromFlags = 'greedy';
  const returnOptions: Record<string, unknown> = {};
  if (options.logprobs !== undefined) {
    returnOptions.generated_tokens = true;
    returnOptions.token_logprobs = true;
    // `--logprobs` alone is true; `--logprobs N` gives the count of alternatives as text.
    if (options.logprobs !== true) {
      returnOptions.top_n_tokens = parseIntegerFlag('--logprobs', options.logprobs, {
        min: 0,
        says: 'takes a number of alternatives from 0 to 5',
        hint: 'write --logprobs=N, or put --logprobs after the prompt words',
      });
    }
  }
  if (options.echo === true) returnOptions.input_text = true;
  if (Object.keys(returnOptions).length > 0) raw.returnOptionsFromFlags = JSON.stringify(returnOptions);

  const choices =
    options.choices !== undefined ? parseIntegerFlag('-n/--choices', options.choices, { min: 1, max: 128 }) : undefined;
  const words = options.args;
  const command: GenerationCommand = {
    raw,
    flags: COMPLETE_PARAMETER_FLAGS,
    parametersWithFlags: 'merge',
    promptWords: words,
    target: {
      kind: 'model',
      model: options.model === '' ? undefined : options.model,
    },
    stream: options.stream ?? 'auto',
    ...(choices !== undefined ? { choices } : {}),
    multimodal: { images: options.image ?? [], promptJson: options.promptJson },
  };
  if (batch) {
    const { runGenerationBatch } = await import('../src/batch/generate-batch.js');
    return runGenerationBatch(ctx, command, batch);
  }
  return runGenerationCommand(ctx, command);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
