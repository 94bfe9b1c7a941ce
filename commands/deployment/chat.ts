import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { SPACE_SCOPE_FLAG_SPECS } from '../../src/options/scope-flags.js';

const spec = {
  path: ['deployment', 'chat'],
  summary: 'Chat with a prompt-template deployment (cpd-cli wx-ai deployment chat)',
  description:
    'POST /ml/v1/deployments/{id_or_name}/text/chat: the deployment must reference a prompt template whose ' +
    'input_mode is chat, which gives the model, its parameters and its system prompt, so --messages may hold no ' +
    'system message. --context is inserted by the service into the system message or the last user message. ' +
    "Text output prints the answer's text; -o json or yaml prints the service's answer as it came.",
  options: [
    { flags: '--id-or-name <id>', description: 'deployment id or serving name (required)' },
    {
      flags: '--messages <json|@file>',
      description: 'the conversation as JSON or @file: [{"role": "user", "content": "…"}, …] (required)',
    },
    { flags: '--context <text>', description: 'text the service inserts into the messages (e.g. retrieved passages)' },
    ...SPACE_SCOPE_FLAG_SPECS,
  ],
  examples: [
    'textgen --profile local deployment chat --id-or-name assistant --messages \'[{"role": "user", "content": "Who are you?"}]\'',
    'textgen --profile local deployment chat --id-or-name assistant_serving --context "Today is Wednesday" \\\n' +
      '      --messages \'[{"role": "user", "content": "Which day is tomorrow?"}]\' -o json',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { runDeploymentChat } = await import('../../src/flows/deployment-chat.js');
  return runDeploymentChat(ctx, options, false, 'deployment chat');
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
