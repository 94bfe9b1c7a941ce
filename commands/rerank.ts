import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';

const spec = {
  path: ['rerank'],
  summary: 'Order texts by how well they answer a query (watsonx, OpenAI-compatible servers with /v1/rerank)',
  description:
    'The query is the words after the command; the texts are --input (repeat it) or --inputs, a JSON ' +
    'array of strings or of {"text": …} objects, inline or @file (@- for stdin). watsonx calls ' +
    "/ml/v1/text/rerank; an OpenAI-compatible profile calls /v1/rerank (vLLM, llama.cpp's server, TEI: " +
    '{model, query, documents, top_n}). Text output is a table of rank, score, index and text, best first; ' +
    '-o json prints {model, query, results: [{rank, index, score, text}], input_token_count?} for every ' +
    'provider (docs/design.md §3). A provider without reranking is a usage error.',
  args: '[query...]',
  options: [
    {
      flags: '-m, --model <name>',
      description:
        "rerank model, e.g. cross-encoder/ms-marco-minilm-l-12-v2 (default: the profile's defaults.model when it reranks, else the service's first rerank model)",
    },
    { flags: '--input <text>', description: 'one text to rank (repeat for each text)', repeatable: true },
    { flags: '--inputs <json|@file>', description: 'the texts as a JSON array of strings or {"text": …}, or @file' },
    { flags: '--top-n <n>', description: 'keep only the best n texts' },
    { flags: '--truncate-input-tokens <n>', description: 'watsonx: cut each text to this many tokens' },
  ],
  examples: [
    'textgen --profile local rerank -m cross-encoder/ms-marco-minilm-l-12-v2 "Where do rivers start?" --input "Rivers start in the mountains." --input "Bread is baked."',
    'textgen --profile local-openai rerank -m BAAI/bge-reranker-base "capital of France" --inputs \'["Paris is the capital.","Berlin is in Germany."]\' --top-n 1 -o json',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { parseIntegerFlag } = await import('../src/options/integer-flag.js');
  const { runRerank } = await import('../src/flows/rerank.js');
  const model = options.model === '' ? undefined : options.model;
  return runRerank(ctx, {
    query: options.args.length > 0 ? options.args.join(' ') : undefined,
    model,
    input: options.input ?? [],
    inputs: options.inputs,
    topN: options.topN === undefined ? undefined : parseIntegerFlag('--top-n', options.topN, { min: 1 }),
    truncateInputTokens:
      options.truncateInputTokens === undefined
        ? undefined
        : parseIntegerFlag('--truncate-input-tokens', options.truncateInputTokens, { min: 1 }),
  });
}

export const command = defineCommand({ spec, helpGroup: 'Embeddings and tokens:', run });
