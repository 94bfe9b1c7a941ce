import { type CommandSpec, type OptionsOf, optionSpecs } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import { SCOPE_FLAG_SPECS } from '../../src/options/scope-flags.js';
import type { Context } from '../../src/context.js';
import { TEXT_CHAT_FLAGS } from '../../src/flows/text-flag-specs.js';

const spec = {
  path: ['text', 'chat'],
  summary: 'Chat with a foundation model (cpdctl wx-ai text chat; watsonx)',
  description:
    "Sends POST /ml/v1/text/chat with the body the flags write, in the service's own words. JSON options " +
    '(--messages, --tools, --tool-choice, --tool-choice-function, --response-format, --logit-bias) take inline ' +
    'JSON or @file; --tool-choice-type/--tool-choice-function and --response-format-type are fields of ' +
    '--tool-choice and --response-format, and cannot be combined with them. Text output prints the answer; ' +
    '-o json|yaml and -j print the service\'s body, as cpdctl does. On another provider use "textgen chat".',
  options: [...optionSpecs(TEXT_CHAT_FLAGS), ...SCOPE_FLAG_SPECS],
  examples: [
    'textgen --profile local text chat --model-id ibm/granite-3-8b-instruct --messages \'[{"role": "user", "content": "What is a river?"}]\' --max-tokens 50',
    'textgen --profile local -o json text chat --model-id ibm/granite-3-8b-instruct --messages \'[{"role": "user", "content": "A river as JSON"}]\' --response-format-type json_object',
  ],
} as const satisfies CommandSpec;

export async function runTextChatCommand(
  options: OptionsOf<typeof spec>,
  ctx: Context,
  stream: boolean,
): Promise<number> {
  const { runTextChat } = await import('../../src/flows/run-text.js');
  return runTextChat(ctx, {
    name: stream ? 'chat-stream' : 'chat',
    friendly: 'chat',
    rows: TEXT_CHAT_FLAGS,
    // The table's keys are the options' keys; the body builder reads them by row.
    options: options as Record<string, string | boolean | string[] | undefined>,
    stream,
  });
}

function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  return runTextChatCommand(options, ctx, false);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
