import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { SCOPE_FLAG_SPECS } from '../../src/options/scope-flags.js';

const spec = {
  path: ['deployment', 'get'],
  summary: 'Show one deployment (cpd-cli wx-ai deployment get)',
  description:
    'GET /ml/v4/deployments/{id} in the space or project the scope options or the profile name: the ' +
    "deployment id, not its serving name. Text output lists its main fields; -o json or yaml prints the service's " +
    'answer as it came.',
  options: [{ flags: '--deployment-id <id>', description: 'the deployment id (required)' }, ...SCOPE_FLAG_SPECS],
  examples: [
    'textgen --profile local deployment get --deployment-id demo',
    'textgen --profile local deployment get --deployment-id summarize -o json -j entity.prompt_template.id --raw-output',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { UsageError } = await import('../../src/contract/errors.js');
  const id = options.deploymentId;
  if (id === undefined || id === '')
    throw new UsageError('--deployment-id is required', { hint: 'list the deployments: textgen deployment list' });
  const { runWxAi } = await import('../../src/flows/wx-ai.js');
  const { deploymentText } = await import('../../src/flows/wx-ai-text.js');
  return runWxAi(ctx, options, {
    command: 'deployment get',
    needsScope: true,
    call: (scope) => ({ kind: 'deployments.get', scope, id }),
    text: deploymentText,
  });
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
