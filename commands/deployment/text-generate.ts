import type { CommandSpec } from '../../src/command.js';
import type { Context } from '../../src/context.js';
import { GENERATE_FLAG_SPECS } from '../../src/options/generate-flag-specs.js';
import type { RawFlagValue } from '../../src/options/flag-values.js';

export const spec: CommandSpec = {
  path: ['deployment', 'text-generate'],
  summary: 'Infer the next tokens for a deployed model (cpd-cli wx-ai deployment text-generate)',
  description:
    'JSON options (--parameters, --moderations, --parameters-return-options, --parameters-length-penalty,\n' +
    '--parameters-prompt-variables, --extra) take inline JSON or @path/to/file.json. A JSON option and its\n' +
    'granular --parameters-* twins are mutually exclusive. The prompt comes from --input, --input-file\n' +
    '(- for stdin), or piped stdin.',
  options: GENERATE_FLAG_SPECS,
  examples: [
    'textgen --profile local deployment text-generate --id-or-name demo --input "Hello" --parameters-max-new-tokens 30',
    'textgen --profile local deployment text-generate --id-or-name classification --input "how far is paris from bangalore:" \\\n' +
      '      --parameters-decoding-method greedy --parameters-max-new-tokens 30 --parameters-stop-sequences fail',
    'echo "Tell me a story" | textgen --profile local deployment text-generate --id-or-name demo -o json -j "results[0].generated_text" --raw-output',
  ],
};

export interface TextGenerateMode {
  /** text-generate-stream: streaming is on whatever --stream says. */
  forceStream: boolean;
}

export async function run(options: Record<string, unknown>, ctx: Context, mode: TextGenerateMode = { forceStream: false }): Promise<number> {
  const { parseBooleanFlag } = await import('../../src/options/flag-values.js');
  const { runGenerationCommand } = await import('../../src/generation/generation-command.js');
  const idOrName = typeof options.idOrName === 'string' && options.idOrName !== '' ? options.idOrName : undefined;
  return runGenerationCommand(ctx, {
    raw: options,
    target: { kind: 'deployment', idOrName },
    stream: mode.forceStream || parseBooleanFlag('--stream', options.stream as RawFlagValue) === true,
  });
}
