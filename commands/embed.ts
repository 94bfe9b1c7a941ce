import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';
import { POOLINGS, REPRESENTATIONS } from '../src/contract/embed-settings.js';
import { BATCH_FLAG_SPECS } from '../src/options/batch-flag-specs.js';

const spec = {
  path: ['embed'],
  summary: 'Turn texts into embedding vectors (watsonx, Azure OpenAI, OpenAI-compatible, Aleph Alpha)',
  description:
    'The words after the command are one text. --input-file (- for stdin) and piped stdin hold one ' +
    'text per line (blank lines skipped) or, when they start with "[", a JSON array of strings. Many ' +
    'texts are split into the requests the service takes (watsonx 1000, Azure/OpenAI 2048, Aleph Alpha ' +
    'batch_semantic_embed 100, /embed 1), sent in order, and put back together: embedding N always ' +
    'belongs to text N, and token counts add up. Text output prints one JSON array per line, one line ' +
    'per text (an Aleph Alpha result of several layers or poolings prints as its JSON object); -o json ' +
    'prints {model, embeddings: [{index, embedding}], input_token_count} for every provider. ' +
    '--similarity prints the cosine similarity of every pair of texts as a table instead of the ' +
    'vectors (cells shaded on a colour terminal); with -o json/yaml it adds a "similarity" matrix to ' +
    'the result. Aleph Alpha: without --representation /embed (layer embeddings, keyed layer_N → ' +
    'pooling), with it /semantic_embed or /batch_semantic_embed.\n\n' +
    'Batch: --batch FILE.jsonl (- for stdin) embeds one text per line — {"input": "text", "id"?: …, ' +
    '"parameters"?: {settings by wire name, e.g. "truncate_input_tokens": 8}} or a JSON string — one ' +
    'request per line, --concurrency at a time, and prints one JSONL record per line in input order ' +
    'whose "result" is the -o json result of that text (see docs/batch.md), e.g.:\n' +
    '  textgen --profile local embed -m ibm/slate-125m-english-rtrvr --batch texts.jsonl --concurrency ' +
    '16 > vectors.jsonl',
  args: '[text...]',
  options: [
    {
      flags: '-m, --model <name>',
      description: "embedding model (Azure: the deployment); default: the profile's defaults.model",
    },
    {
      flags: '--input-file <path>',
      description: 'texts from a file (- for stdin): one per line, or a JSON array of strings',
    },
    {
      flags: '--truncate-input-tokens <n>',
      description: 'watsonx: cut each text to this many tokens (0 = no truncation)',
    },
    {
      flags: '--layers <list>',
      description:
        'Aleph Alpha /embed: layer indices, comma-separated or repeated (0 = input embeddings, -1 = last; default -1)',
      repeatable: true,
    },
    {
      flags: '--pooling <list>',
      description:
        'Aleph Alpha /embed: mean, weighted_mean, max, last_token, abs_max (comma-separated or repeated; default mean)',
      repeatable: true,
      choices: POOLINGS,
    },
    { flags: '--tokens [bool]', description: "Aleph Alpha /embed: also return each text's tokens" },
    { flags: '--normalize [bool]', description: 'Aleph Alpha: return unit-length vectors' },
    {
      flags: '--representation <kind>',
      description: 'Aleph Alpha semantic embeddings: symmetric, document or query',
      choices: REPRESENTATIONS,
    },
    { flags: '--compress-to-size <n>', description: 'Aleph Alpha semantic embeddings: 128 dimensions instead of 5120' },
    {
      flags: '--image <@file>',
      description: 'Aleph Alpha: a PNG or JPEG in the prompt, before its text (repeatable)',
      repeatable: true,
    },
    {
      flags: '--prompt-json <json|@file>',
      description: 'Aleph Alpha: the prompt as an array of items {type: text|image|token_ids, data}',
    },
    { flags: '--similarity', description: 'print the cosine-similarity matrix of the texts instead of their vectors' },
    {
      flags: '--nice [bool]',
      description: 'Aleph Alpha: let concurrent requests of other users go first (?nice=true)',
    },
    ...BATCH_FLAG_SPECS,
  ],
  examples: [
    'textgen --profile local embed -m ibm/slate-125m-english-rtrvr "What is a river?"',
    'textgen --profile local-aa embed --representation query --compress-to-size 128 "Where do rivers start?"',
    'echo \'{"input":"What is a river?","id":"q1"}\' | textgen --profile local embed -m ibm/slate-125m-english-rtrvr --batch - -j "embeddings[0].embedding | length(@)"',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { parseEmbedSettings } = await import('../src/flows/embed-flags.js');
  const { parseBatchSettings } = await import('../src/options/batch-settings.js');
  const batch = parseBatchSettings(options);
  const words = options.args;
  const model = options.model === '' ? undefined : options.model;
  const settings = parseEmbedSettings(options);
  if (batch) {
    const { runEmbedBatch } = await import('../src/batch/embed-batch.js');
    const given = (value: string | string[] | undefined) =>
      value !== undefined && !(Array.isArray(value) && value.length === 0);
    return runEmbedBatch(
      ctx,
      {
        model,
        settings,
        inputFlags: [
          ...(words.length > 0 ? ['TEXT words'] : []),
          ...(given(options.inputFile) ? ['--input-file'] : []),
        ],
        refused: [
          ...(options.similarity === true ? ['--similarity'] : []),
          ...(given(options.image) || given(options.promptJson) ? ['--image/--prompt-json'] : []),
        ],
        raw: options,
      },
      batch,
    );
  }
  const { runEmbed } = await import('../src/flows/run-embed.js');
  return runEmbed(ctx, {
    model,
    settings,
    similarity: options.similarity === true,
    source: { words, inputFile: options.inputFile },
    multimodal: { images: options.image ?? [], promptJson: options.promptJson },
  });
}

export const command = defineCommand({ spec, helpGroup: 'Embeddings and tokens:', run });
