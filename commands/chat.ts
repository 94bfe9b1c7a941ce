import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';
import { CHAT_OPTION_SPECS } from '../src/chat/flag-specs.js';

const spec = {
  path: ['chat'],
  summary: 'Hold a conversation with a chat model: one turn, a saved conversation, a batch, or interactively',
  description:
    'The message is the words after the command (one user message), --message ROLE=TEXT (repeatable), --messages ' +
    '(a JSON array of {"role", "content"}), or piped stdin; --system sets the system message. On a terminal with no ' +
    'message, chat opens a conversation: the answer streams, the whole history is sent each turn, and /system TEXT, ' +
    '/reset, /save FILE, /exit (or Ctrl-D) work at the prompt; Ctrl-C stops an answer, and at the prompt leaves.\n\n' +
    'Conversations as files: --save FILE.jsonl writes the conversation with the answer (one message per line, mode ' +
    '0600); --continue FILE.jsonl resumes one and appends the new turns. --batch FILE.jsonl runs one chat per line ' +
    '({"messages": [...], "parameters"?: {...}, "id"?: ...}) with the ordering, concurrency, --resume and --shard of ' +
    'complete --batch (docs/batch.md).\n\n' +
    'Tools: --tools (functions the model may call), --tool-choice, --[no-]parallel-tool-calls; each call prints as one ' +
    'JSON line {"id", "name", "arguments"}; --tool-result ID=TEXT answers one in the next turn, and --run-tool ' +
    'NAME=COMMAND runs it (confirmed on a terminal; --yes without one) and goes on, up to --max-tool-rounds. ' +
    'Structured output: --response-format json_object, or --json-schema FILE; the answer is checked (exit 4 when it ' +
    'does not match; --schema-retries N asks again) and printed alone, so it pipes into jq.\n\n' +
    'Providers: watsonx (models, or deployments with --id-or-name), azure-openai, ' +
    'openai, aleph-alpha (profiles with chat: true); the wire facts are in docs/protocols/chat.md.',
  args: '[message...]',
  options: CHAT_OPTION_SPECS,
  examples: [
    'textgen --profile local chat --system "Answer in one sentence." --max-tokens 40 "What is a river?"',
    'echo \'[{"role":"user","content":"Name three rivers"}]\' | textgen --profile local-openai chat -m gpt-4o-mini --messages @- -o json',
    'textgen --profile local-azure chat -m gpt-4o --save trip.jsonl --max-tokens 60 "Plan a day in Lisbon"',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { runChatCommand } = await import('../src/chat/command.js');
  return runChatCommand(options, ctx);
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
