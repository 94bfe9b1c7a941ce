import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { SCOPE_FLAG_SPECS } from '../../src/options/scope-flags.js';

/** The states a deployment can be in, as the service filters by them. */
const STATES = ['initializing', 'updating', 'ready', 'failed'] as const;

const spec = {
  path: ['deployment', 'list'],
  summary: 'List the deployments of a space or project (cpd-cli wx-ai deployment list)',
  description:
    'GET /ml/v4/deployments in the space or project the scope options or the profile name. The filters are ' +
    "the service's: --type prompt_tune, foundation_model, custom_foundation_model or prompt_template (which " +
    'combines with the others); --conflict says whether --serving-name is taken, and combines with nothing ' +
    "else. A table by default; -o json or yaml prints the service's answer as it came, -j queries it.",
  options: [
    { flags: '--name <name>', description: 'only the deployments with this name' },
    { flags: '--serving-name <name>', description: 'the deployment, if any, with this serving name' },
    { flags: '--asset-id <id>', description: 'only the deployments of this asset (a model id)' },
    { flags: '--prompt-template-id <id>', description: 'only the deployments of this prompt template' },
    { flags: '--type <type>', description: 'only this deployment type, or prompt_template' },
    { flags: '--state <state>', description: 'initializing, updating, ready or failed', choices: STATES },
    { flags: '--tag-value <tag>', description: 'only the deployments with this tag' },
    { flags: '--conflict [bool]', description: 'whether --serving-name is taken (default false)' },
    ...SCOPE_FLAG_SPECS,
  ],
  examples: [
    'textgen --profile local deployment list',
    'textgen --profile local deployment list --space examples --type prompt_template -o json',
    'textgen --profile local deployment list --serving-name my_new_name --conflict',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { parseBooleanFlag } = await import('../../src/options/flag-values.js');
  const { UsageError } = await import('../../src/contract/errors.js');
  if (options.state !== undefined && !(STATES as readonly string[]).includes(options.state))
    throw new UsageError(`--state must be one of ${STATES.join(', ')}, got "${options.state}"`);
  const conflict = parseBooleanFlag('--conflict', options.conflict);
  const query: Record<string, string> = {};
  const filters = [
    ['serving_name', options.servingName],
    ['tag.value', options.tagValue],
    ['asset_id', options.assetId],
    ['prompt_template_id', options.promptTemplateId],
    ['name', options.name],
    ['type', options.type],
    ['state', options.state],
  ] as const;
  for (const [param, value] of filters) if (value !== undefined) query[param] = value;
  if (conflict !== undefined) query.conflict = String(conflict);
  const { runWxAi } = await import('../../src/flows/wx-ai.js');
  const { deploymentsText } = await import('../../src/flows/wx-ai-text.js');
  return runWxAi(ctx, options, {
    command: 'deployment list',
    needsScope: true,
    call: (scope) => ({ kind: 'deployments.list', scope, query }),
    text: deploymentsText,
  });
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
