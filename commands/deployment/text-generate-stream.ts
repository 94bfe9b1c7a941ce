import type { CommandSpec } from '../../src/command.js';
import type { Context } from '../../src/context.js';
import { GENERATE_FLAG_SPECS } from '../../src/options/generate-flag-specs.js';
import { run as runTextGenerate } from './text-generate.js';

export const spec: CommandSpec = {
  path: ['deployment', 'text-generate-stream'],
  summary: 'Same as text-generate, streaming tokens as they are generated (cpd-cli has both)',
  options: GENERATE_FLAG_SPECS.filter((o) => !o.flags.startsWith('--stream')),
  examples: [
    'textgen --profile local deployment text-generate-stream --id-or-name demo --input "Once upon a time"',
    'textgen deployment text-generate-stream --id-or-name demo --input Hi -o jsonl',
  ],
};

export function run(options: Record<string, unknown>, ctx: Context): Promise<number> {
  return runTextGenerate(options, ctx, { forceStream: true });
}
