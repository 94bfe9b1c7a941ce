import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';
import { UsageError } from '../src/contract/errors.js';

const spec = {
  path: ['detokenize'],
  summary: 'Turn token ids back into text',
  description:
    'IDS are whole numbers: separate words, comma-separated, or piped on stdin (as "tokenize --ids" ' +
    'prints them). Aleph Alpha decodes on the service; the others decode offline with the public ' +
    'encoding of the model (watsonx has no detokenize endpoint: give --encoding). --local decodes ' +
    'offline for any profile.',
  args: '[ids...]',
  options: [
    { flags: '-m, --model <name>', description: "model (default: the profile's defaults.model)" },
    { flags: '--local', description: 'decode on this machine, not on the service' },
    {
      flags: '--encoding <name>',
      description: 'public encoding to decode with offline: r50k_base, p50k_base, cl100k_base, o200k_base',
    },
  ],
  examples: [
    'textgen detokenize --encoding cl100k_base 15339 1917',
    'textgen --profile local-azure detokenize 9906,1917',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { readStdinText } = await import('../src/options/input.js');
  const { parseTokenIds } = await import('../src/flows/token-ids.js');
  const { runDetokenize } = await import('../src/flows/run-tokenize.js');

  let words = options.args;
  if (words.length === 0 && !ctx.terminal.stdinIsTTY) words = [await readStdinText(ctx.stdin)];
  const ids = parseTokenIds(words);
  if (ids.length === 0)
    throw new UsageError('missing required argument: IDS (token ids as words, comma-separated, or piped on stdin)');

  return runDetokenize(ctx, {
    ids,
    model: options.model === '' ? undefined : options.model,
    encoding: options.encoding,
    local: options.local === true,
  });
}

export const command = defineCommand({ spec, helpGroup: 'Embeddings and tokens:', run });
