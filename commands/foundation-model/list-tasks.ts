import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { LISTING_FLAG_SPECS } from '../../src/options/listing-flag-specs.js';
import { VERSION_FLAG_SPECS } from '../../src/options/scope-flags.js';

const spec = {
  path: ['foundation-model', 'list-tasks'],
  summary: 'List the tasks the foundation models support (cpd-cli wx-ai foundation-model list-tasks)',
  description:
    "GET /ml/v1/foundation_model_tasks. A table by default; -o json or yaml prints the service's answer as it " +
    "came (with --all-pages, every page's resources in one answer).",
  options: [...LISTING_FLAG_SPECS, ...VERSION_FLAG_SPECS],
  examples: [
    'textgen --profile local foundation-model list-tasks',
    'textgen --profile local foundation-model list-tasks --limit 5 -o json -j "resources[].task_id"',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { listingQuery } = await import('../../src/flows/listing-flags.js');
  const { query, allPages } = listingQuery(options);
  const { runWxAi } = await import('../../src/flows/wx-ai.js');
  const { foundationModelTasksText } = await import('../../src/flows/wx-ai-text.js');
  return runWxAi(ctx, options, {
    command: 'foundation-model list-tasks',
    allPages,
    call: () => ({ kind: 'foundation-models.tasks', query }),
    text: foundationModelTasksText,
  });
}

export const command = defineCommand({ spec, helpGroup: 'Inspect:', run });
