import { type CommandSpec, type OptionsOf, optionSpecs } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import { SCOPE_FLAG_SPECS } from '../../src/options/scope-flags.js';
import type { Context } from '../../src/context.js';
import { TEXT_CHAT_FLAGS } from '../../src/flows/text-flag-specs.js';
import { runTextChatCommand } from './chat.js';

const spec = {
  path: ['text', 'chat-stream'],
  summary: 'Same as text chat, streaming the answer as it is generated (cpdctl wx-ai text chat-stream)',
  description:
    'Sends POST /ml/v1/text/chat_stream with the body the flags write (every flag of text chat). Text output ' +
    "prints the answer as it arrives; -o json|yaml prints the service's events, -o jsonl one per line.",
  options: [...optionSpecs(TEXT_CHAT_FLAGS), ...SCOPE_FLAG_SPECS],
  examples: [
    'textgen --profile local text chat-stream --model-id ibm/granite-3-8b-instruct --messages \'[{"role": "user", "content": "Tell me a story"}]\'',
    'textgen --profile local -o jsonl text chat-stream --model-id ibm/granite-3-8b-instruct --messages \'[{"role": "user", "content": "Hi"}]\' --max-tokens 5',
  ],
} as const satisfies CommandSpec;

function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  return runTextChatCommand(options, ctx, true);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
