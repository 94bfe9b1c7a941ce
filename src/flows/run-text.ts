/**
 * The cpdctl mirror commands that answer with one JSON body (`text calculate-embeddings`, `text rerank`,
 * `text tokenize`) and the chat pair (`text chat`, `text chat-stream`): the body the flags write
 * (src/flows/text-body.ts), sent on the service's own route through the one call pipeline, and the service's own
 * answer printed — what cpdctl's `-o json` prints, `-o yaml`, `-j`, `--raw-output`. They talk watsonx.ai only: on
 * another provider they are a usage error naming the friendly command that does the same there.
 */
import type { Context } from '../context.js';
import type { ResolvedProfile } from '../contract/profile.js';
import type { WxTextOperation, WxTextRoute } from '../contract/adapter.js';
import { UsageError } from '../contract/errors.js';
import type { ChatMessage } from '../contract/chat.js';
import { readStdinText } from '../options/input.js';
import type { JsonOptionIo } from '../options/json-option.js';
import { buildTextBody, type BodyFlagValues } from './text-body.js';
import type { BodyFlag } from './text-flag-specs.js';
import type { ScopeFlagOptions } from '../options/scope-flags.js';

export interface TextCommand {
  /** The command words after `text` ("rerank"), for messages. */
  name: string;
  /** The friendly command that does the same on every provider ("embed"), for the hint elsewhere. */
  friendly: string;
  rows: readonly BodyFlag[];
  options: BodyFlagValues;
}

function io(ctx: Context): JsonOptionIo {
  let stdin: Promise<string> | undefined;
  return { cwd: ctx.cwd, stdin: () => (stdin ??= readStdinText(ctx.stdin)) };
}

/** The context whose profile carries the scope options' space, project and version (src/options/scope-resolve.ts). */
async function scoped(ctx: Context, options: BodyFlagValues): Promise<Context> {
  const { scopedContext } = await import('../options/scope-resolve.js');
  // The scope flags are among the command's options, under their own keys.
  return scopedContext(ctx, options as ScopeFlagOptions);
}

/** The profile and its mirror operation; a usage error on a provider without the cpdctl routes. */
export async function wxTextProfile(
  ctx: Context,
  cmd: Pick<TextCommand, 'name' | 'friendly'>,
): Promise<{ profile: ResolvedProfile; op: WxTextOperation }> {
  const profile = await ctx.connect(await ctx.profile());
  const { adapterFor } = await import('../../profiles/registry.js');
  const load = adapterFor(profile.provider).wxText;
  if (load === undefined)
    throw new UsageError(
      `text ${cmd.name} mirrors cpdctl wx-ai and talks watsonx.ai; profile "${profile.name}" is ${profile.provider}`,
      { hint: `use "textgen ${cmd.friendly}", which works with ${profile.provider} too` },
    );
  return { profile, op: await load() };
}

/** `text calculate-embeddings|rerank|tokenize`: one body, one JSON answer, printed as the service wrote it. */
export async function runTextCall(
  ctx: Context,
  cmd: TextCommand & { route: WxTextRoute; shape?: (body: Record<string, unknown>) => void },
): Promise<number> {
  const body = await buildTextBody(cmd.rows, cmd.options, io(ctx));
  cmd.shape?.(body);
  ctx = await scoped(ctx, cmd.options);
  const { profile, op } = await wxTextProfile(ctx, cmd);
  const spec = op.request(cmd.route, body, profile, cmd.name);
  const { printDryRun, requestJson } = await import('../call/send.js');
  if (ctx.globals.dryRun) {
    await printDryRun(ctx, profile, spec);
    return 0;
  }
  const { calleeFor } = await import('../call/callee.js');
  const answer = await requestJson(ctx, profile, await calleeFor(profile.provider), spec);
  const { writeResult } = await import('./write-result.js');
  await writeResult(ctx, ctx.output().format, answer.json, () => `${JSON.stringify(answer.json, null, 2)}\n`);
  return 0;
}

/** `--inputs` of `text rerank` takes plain strings too; the wire takes `{text}`. */
export function rerankInputsShape(body: Record<string, unknown>): void {
  const inputs = body.inputs;
  if (!Array.isArray(inputs)) throw new UsageError('--inputs must be a JSON array of {"text": …}');
  body.inputs = inputs.map((item, i) => {
    if (typeof item === 'string') return { text: item };
    if (typeof item === 'object' && item !== null && typeof (item as { text?: unknown }).text === 'string') return item;
    throw new UsageError(`--inputs[${i}] must be {"text": "…"} or a string`);
  });
}

/** The conversation as chat's canonical messages, as far as they read as such (the wire gets the user's own). */
function canonicalMessages(messages: unknown): ChatMessage[] {
  if (!Array.isArray(messages) || messages.length === 0)
    throw new UsageError('--messages must be a JSON array of at least one {"role", "content"} message');
  return messages.map((m, i) => {
    const role = typeof m === 'object' && m !== null ? (m as { role?: unknown }).role : undefined;
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool' && role !== 'control')
      throw new UsageError(
        `--messages[${i}].role must be system, user, assistant or tool, got ${JSON.stringify(role)}`,
      );
    const content = (m as { content?: unknown }).content;
    return {
      role: role === 'control' ? 'user' : role,
      content: typeof content === 'string' ? content : '',
    } as ChatMessage;
  });
}

/**
 * `text chat` and `text chat-stream`: the user's body, through chat's own turn (src/chat/run-chat.ts) so the answer
 * streams to a terminal and a stream that breaks off keeps what came. Text output is the answer; any structured
 * output is the service's body (the streamed events, for chat-stream).
 */
export async function runTextChat(ctx: Context, cmd: TextCommand & { stream: boolean }): Promise<number> {
  const body = await buildTextBody(cmd.rows, cmd.options, io(ctx));
  const messages = canonicalMessages(body.messages);
  // Tools and a forced tool are checked as chat checks them, before anything is sent.
  if (body.tools !== undefined) {
    const { checkTools, checkToolChoiceValue } = await import('../chat/tools.js');
    const tools = await checkTools(body.tools, '--tools');
    if (body.tool_choice !== undefined) checkToolChoiceValue(body.tool_choice, tools, '--tool-choice');
  } else if (body.tool_choice !== undefined) {
    throw new UsageError('--tool-choice names a tool, but no --tools were given');
  }
  ctx = await scoped(ctx, cmd.options);
  await wxTextProfile(ctx, cmd);
  const { prepareChat } = await import('../chat/prepare.js');
  const format = ctx.output().format;
  const jmes = ctx.output().jmes;
  const present = { format, jmes, rawOutput: ctx.output().rawOutput, raw: format !== 'text' || jmes !== undefined };
  const { model_id: model, ...fields } = body;
  const ready = await prepareChat(ctx, {
    parameters: {},
    features: {},
    model: model as string,
    present,
    ignoreUnsupported: false,
    stream: cmd.stream,
  });
  const { runChatTurn } = await import('../chat/run-chat.js');
  await runChatTurn(ctx, {
    op: ready.op,
    profile: ready.profile,
    request: { messages, parameters: {} },
    target: { ...ready.target, stream: cmd.stream },
    // Merged last into the wire body: the user's fields, in the service's words (the scope is the profile's).
    extra: fields,
    present,
  });
  return 0;
}
