import { type CommandSpec, type OptionsOf, optionSpecs } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import { SCOPE_FLAG_SPECS } from '../../src/options/scope-flags.js';
import type { Context } from '../../src/context.js';
import { TEXT_RERANK_FLAGS } from '../../src/flows/text-flag-specs.js';

const spec = {
  path: ['text', 'rerank'],
  summary: 'Rank texts against a query (cpdctl wx-ai text rerank; watsonx)',
  description:
    "Sends POST /ml/v1/text/rerank with the body the flags write and prints the service's answer (JSON; " +
    '-o yaml, -j). --inputs is a JSON array of {"text": …} (plain strings are taken too) or @file; --parameters ' +
    'takes inline JSON or @file, and its fields --parameters-truncate-input-tokens and ' +
    '--parameters-return-options cannot be combined with it. On another provider use "textgen rerank".',
  options: [...optionSpecs(TEXT_RERANK_FLAGS), ...SCOPE_FLAG_SPECS],
  examples: [
    'textgen --profile local text rerank --model-id cross-encoder/ms-marco-minilm-l-12-v2 --query "Where do rivers start?" --inputs \'[{"text": "In the mountains."}, {"text": "In the bakery."}]\' --parameters-return-options \'{"top_n": 1}\'',
    'textgen --profile local text rerank --model-id cross-encoder/ms-marco-minilm-l-12-v2 --query rivers --inputs \'["rivers flow", "bread rises"]\' -j "results[0].index"',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { runTextCall, rerankInputsShape } = await import('../../src/flows/run-text.js');
  return runTextCall(ctx, {
    name: 'rerank',
    friendly: 'rerank',
    route: 'text/rerank',
    rows: TEXT_RERANK_FLAGS,
    // The table's keys are the options' keys; the body builder reads them by row.
    options: options as Record<string, string | boolean | string[] | undefined>,
    shape: rerankInputsShape,
  });
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
