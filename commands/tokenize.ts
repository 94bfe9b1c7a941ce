import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';
import { UsageError } from '../src/contract/errors.js';

const spec = {
  path: ['tokenize'],
  summary: 'Split text into tokens: count them, list them, show their ids',
  description:
    'The text is the words after the command, --input-file (- for stdin), or piped stdin. watsonx and ' +
    'Aleph Alpha tokenize on the service; Azure OpenAI, OpenAI and Open Inference tokenize offline ' +
    'with the public encoding of the model (r50k_base, p50k_base, cl100k_base, o200k_base). --local ' +
    "tokenizes offline for any profile (Aleph Alpha: with the model's tokenizer, fetched once and " +
    'cached); --encoding names the public encoding to use, for any profile. Text output: the count; ' +
    '--tokens one token per line; --ids the ids on one line. On a colour terminal, plain tokenize ' +
    'shows the text with token boundaries in alternating colours, then the count. -o json gives ' +
    '{model, encoding, token_count, tokens, ids} (watsonx answers without ids).',
  args: '[text...]',
  options: [
    { flags: '-m, --model <name>', description: "model (default: the profile's defaults.model)" },
    { flags: '--input-file <path>', description: 'read the text from a file (- for stdin)' },
    { flags: '--tokens', description: 'list the tokens' },
    { flags: '--ids', description: 'list the token ids' },
    { flags: '--count', description: 'print only the number of tokens' },
    { flags: '--local', description: 'tokenize on this machine, not on the service' },
    {
      flags: '--encoding <name>',
      description: 'public encoding to tokenize with offline: r50k_base, p50k_base, cl100k_base, o200k_base',
    },
  ],
  examples: [
    'textgen --profile local-azure tokenize "Hello world" --tokens',
    'textgen tokenize --encoding cl100k_base --ids "hello world"',
    'textgen --profile local-aa tokenize --local --tokens --ids "An apple a day"',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { resolveInput } = await import('../src/options/input.js');
  const { runTokenize } = await import('../src/flows/run-tokenize.js');

  const show = { tokens: options.tokens === true, ids: options.ids === true };
  const count = options.count === true;
  if (count && (show.tokens || show.ids)) {
    throw new UsageError(`--count prints only the number; leave out ${show.tokens ? '--tokens' : '--ids'}`);
  }
  const words = options.args;
  const inputFile = options.inputFile;
  if (words.length > 0 && inputFile !== undefined)
    throw new UsageError('give the text once: as words on the command line, or with --input-file');
  const text =
    words.length > 0
      ? words.join(' ')
      : await resolveInput(inputFile !== undefined ? { inputFile } : {}, {
          cwd: ctx.cwd,
          stdin: ctx.stdin,
          stdinIsTTY: ctx.terminal.stdinIsTTY,
        });
  if (text === undefined)
    throw new UsageError(
      'missing required argument: TEXT (words after the command, --input-file, or the text piped on stdin)',
    );

  return runTokenize(ctx, {
    text,
    show,
    count,
    model: options.model === '' ? undefined : options.model,
    encoding: options.encoding,
    local: options.local === true,
  });
}

export const command = defineCommand({ spec, helpGroup: 'Embeddings and tokens:', run });
