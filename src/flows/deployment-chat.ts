/**
 * `deployment chat` and `deployment chat-stream` (cpd-cli wx-ai deployment chat[-stream]): the messages given as
 * JSON sent as they are to `/ml/v1/deployments/{id_or_name}/text/chat[_stream]` — the deployment's prompt template
 * gives the model, its parameters and its system prompt, so the request carries only `messages` and `context` — and
 * the answer shown by the chat machinery: text as it arrives on a terminal, or, for `-o json|yaml|jsonl` and `-j`,
 * the service's own body (a stream's events, one per line with `-o jsonl`).
 */
import type { Context } from '../context.js';
import type { ChatMessage, ChatRequest } from '../contract/chat.js';
import { UsageError } from '../contract/errors.js';
import { isRecord } from '../contract/wire-fields.js';
import { scopedContext } from '../options/scope-resolve.js';
import type { ScopeFlagOptions } from '../options/scope-flags.js';
import { fileIo } from './task-options.js';
import { wxAiOperations } from './wx-ai.js';

/** IBM's limits on `messages`. */
const MAX_MESSAGES = 1000;

export interface DeploymentChatOptions extends ScopeFlagOptions {
  idOrName?: string;
  messages?: string;
  context?: string;
}

/** The messages as given, checked as the service documents them: 1 to 1000, each with a role; no `system` role. */
function checkMessages(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value))
    throw new UsageError(`--messages must be a JSON array of messages, got ${JSON.stringify(value)?.slice(0, 40)}`, {
      hint: 'e.g. --messages \'[{"role": "user", "content": "Hello"}]\'',
    });
  if (value.length < 1 || value.length > MAX_MESSAGES)
    throw new UsageError(`--messages must hold 1 to ${MAX_MESSAGES} messages, got ${value.length}`);
  value.forEach((m, i) => {
    if (!isRecord(m) || typeof m.role !== 'string')
      throw new UsageError(`--messages[${i}] must be an object with a "role"`, {
        hint: 'e.g. {"role": "user", "content": "Hello"}',
      });
    if (m.role === 'system')
      throw new UsageError(`--messages[${i}]: a deployment chat cannot take a system message`, {
        hint: "the deployment's prompt template gives the system prompt; put what you need in a user message",
      });
  });
  return value as Record<string, unknown>[];
}

/** The canonical view of the messages, for the chat machinery's checks; the wire gets the messages as given. */
function canonical(messages: readonly Record<string, unknown>[]): ChatMessage[] {
  return messages.map((m) => ({
    role: m.role as ChatMessage['role'],
    content: typeof m.content === 'string' ? m.content : '',
  }));
}

export async function runDeploymentChat(
  ctx: Context,
  options: DeploymentChatOptions,
  stream: boolean,
  command: string,
): Promise<number> {
  const idOrName = options.idOrName;
  if (idOrName === undefined || idOrName === '')
    throw new UsageError('--id-or-name is required', { hint: 'list the deployments: textgen deployment list' });
  if (options.messages === undefined)
    throw new UsageError('--messages is required', {
      hint: 'give the conversation as JSON or @file: \'[{"role": "user", "content": "Hello"}]\'',
    });
  const scoped = scopedContext(ctx, options);
  const messages = checkMessages(await fileIo(ctx).readJson('--messages', options.messages));
  const base = await scoped.profile();
  const { adapterFor } = await import('../../profiles/registry.js');
  const adapter = adapterFor(base.provider);
  wxAiOperations(adapter.wxAi ? await adapter.wxAi() : undefined, command, base.name, adapter.displayName);
  if (!adapter.chat) throw new UsageError(`${adapter.displayName} has no chat API`);
  const op = await adapter.chat();
  const profile = await scoped.connect(base);
  const request: ChatRequest = { messages: canonical(messages), parameters: {} };
  const output = ctx.output();
  const { runChatTurn } = await import('../chat/run-chat.js');
  await runChatTurn(scoped, {
    op,
    profile,
    request,
    target: { deployment: idOrName, stream },
    extra: { messages, ...(options.context !== undefined ? { context: options.context } : {}) },
    present: {
      format: output.format,
      jmes: output.jmes,
      rawOutput: output.rawOutput,
      // Structured output is the service's body, as cpd-cli prints it; text is the answer's text.
      raw: output.format !== 'text' || output.jmes !== undefined,
    },
  });
  return 0;
}
