import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { LISTING_FLAG_SPECS } from '../../src/options/listing-flag-specs.js';
import { VERSION_FLAG_SPECS } from '../../src/options/scope-flags.js';

/** The service's limit on the filter expression. */
const MAX_FILTERS = 1000;

const spec = {
  path: ['foundation-model', 'list-models'],
  summary: 'List the foundation models (cpd-cli wx-ai foundation-model list-models)',
  description:
    "GET /ml/v1/foundation_model_specs. --filters is the service's expression: filters joined by commas, each " +
    'one of modelid_*, provider_*, source_*, input_tier_*, output_tier_*, tier_*, task_*, lifecycle_* or ' +
    'function_* (a leading ! asks for its absence), ending in :or or :and (default). A table by default; -o json ' +
    "or yaml prints the service's answer as it came (with --all-pages, every page's resources in one answer).",
  options: [
    { flags: '--filters <expr>', description: 'e.g. function_time_series_forecast or modelid_a,modelid_b:or' },
    ...LISTING_FLAG_SPECS,
    { flags: '--tech-preview [bool]', description: "also the 'Tech Preview' models, if entitled (default false)" },
    ...VERSION_FLAG_SPECS,
  ],
  examples: [
    'textgen --profile local foundation-model list-models --filters function_time_series_forecast',
    'textgen --profile local foundation-model list-models --limit 50 --all-pages -o json -j "resources[].model_id"',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { listingQuery } = await import('../../src/flows/listing-flags.js');
  const { parseBooleanFlag } = await import('../../src/options/flag-values.js');
  const { UsageError } = await import('../../src/contract/errors.js');
  const { query, allPages } = listingQuery(options);
  if (options.filters !== undefined) {
    if (options.filters.length < 1 || options.filters.length > MAX_FILTERS)
      throw new UsageError(`--filters must be 1 to ${MAX_FILTERS} characters long, got ${options.filters.length}`);
    query.filters = options.filters;
  }
  const techPreview = parseBooleanFlag('--tech-preview', options.techPreview);
  if (techPreview !== undefined) query.tech_preview = String(techPreview);
  const { runWxAi } = await import('../../src/flows/wx-ai.js');
  const { foundationModelsText } = await import('../../src/flows/wx-ai-text.js');
  return runWxAi(ctx, options, {
    command: 'foundation-model list-models',
    allPages,
    call: () => ({ kind: 'foundation-models.list', query }),
    text: foundationModelsText,
  });
}

export const command = defineCommand({ spec, helpGroup: 'Inspect:', run });
