/**
 * `textgen chat`: validate the flags (before anything costs a server start or a token exchange), gather the
 * conversation, resolve the profile and its adapter's chat, and run one turn — or a batch of conversations, or an
 * interactive conversation on a terminal. docs/protocols/chat.md has the wire side.
 */
import { optionKey } from '../command.js';
import type { Context } from '../context.js';
import { UsageError } from '../contract/errors.js';
import { readStdinText } from '../options/input.js';
import { readJsonOption, refusePrototypeKeys, type JsonOptionIo } from '../options/json-option.js';
import type { OutputFormat } from '../output/format.js';
import type { ChatMessage } from '../contract/chat.js';
import { CHAT_APIS, type ChatApi } from '../contract/profile.js';
import type { ConversationFile } from './conversation-file.js';
import type { ChatFeatureSetup } from './features.js';
import type { ChatOptions } from './flag-specs.js';
import { assembleConversation, checkMessageList, parseMessageFlag } from './messages.js';
import { buildChatParameters } from './parameters.js';
import { prepareChat, type ChatSetup } from './prepare.js';

/** An empty value (`--model ""`) counts as not given. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === '' ? undefined : value;
}

/** Flags that read stdin when their value is `@-`. */
const AT_STDIN = (['--messages', '--parameters', '--extra', '--tools', '--json-schema'] as const).map(
  (flag) => [flag, optionKey(flag)] as const,
);

export async function runChatCommand(options: ChatOptions & { args: string[] }, ctx: Context): Promise<number> {
  const { parseBatchSettings } = await import('../options/batch-settings.js');
  const batch = parseBatchSettings(options);
  const format = ctx.output().format;
  const readers = AT_STDIN.filter(([, key]) => options[key] === '@-').map(([flag]) => `${flag} @-`);
  if (readers.length > 1) throw new UsageError(`only one option can read stdin, but ${readers.join(' and ')} both do`);
  let stdinText: Promise<string> | undefined;
  const readStdin = () => (stdinText ??= readStdinText(ctx.stdin));
  const io: JsonOptionIo = { cwd: ctx.cwd, stdin: readStdin };

  const model = nonEmpty(options.model);
  const deployment = nonEmpty(options.idOrName);
  if (model !== undefined && deployment !== undefined) {
    throw new UsageError('give the target once: -m/--model for a model, or --id-or-name for a deployment');
  }
  const { buildChatFeatures } = await import('./features.js');
  const chatFeatures = await buildChatFeatures(options, io);
  const setup: ChatSetup = {
    parameters: await buildChatParameters(options, io),
    features: chatFeatures.features,
    extra: options.extra === undefined ? undefined : await readExtra(options.extra, io),
    model,
    deployment,
    present: {
      format,
      jmes: ctx.output().jmes,
      rawOutput: ctx.output().rawOutput,
      raw: options.raw === true,
    },
    ignoreUnsupported: options.ignoreUnsupported === true,
    stream: options.stream ?? 'auto',
    api: chatApiOf(options.api),
  };
  const words = options.args;
  const system = options.system;
  const save = nonEmpty(options.save);
  const resume = nonEmpty(options.continue);

  if (batch) {
    const given = [
      ...(words.length > 0 ? ['message words'] : []),
      ...(options.message !== undefined ? ['--message'] : []),
      ...(options.messages !== undefined ? ['--messages'] : []),
      ...(resume !== undefined ? ['--continue'] : []),
      ...(save !== undefined ? ['--save'] : []),
      ...(options.toolResult !== undefined ? ['--tool-result'] : []),
      ...(chatFeatures.runTools.size > 0 ? ['--run-tool'] : []),
      ...(options.schemaRetries !== undefined ? ['--schema-retries'] : []),
    ];
    const { runChatBatch } = await import('./batch.js');
    return runChatBatch(ctx, setup, batch, {
      given,
      system,
      raw: { parameters: options.parameters, extra: options.extra },
    });
  }

  const added: ChatMessage[] = [];
  if (options.messages !== undefined) {
    added.push(...checkMessageList(await readJsonOption('--messages', options.messages, io), '--messages'));
  }
  for (const m of options.message ?? []) added.push(parseMessageFlag(m));
  if (options.toolResult !== undefined) {
    const { parseToolResult } = await import('./messages.js');
    const { readTextFile } = await import('../options/input.js');
    for (const r of options.toolResult)
      added.push(await parseToolResult(r, (path) => readTextFile('--tool-result', path, { cwd: ctx.cwd })));
  }
  if (words.length > 0) added.push({ role: 'user', content: words.join(' ') });
  // Without a terminal nothing can ask before a tool runs: refused now, before a request is paid for (--dry-run
  // sends nothing and runs nothing, so it may show the first request).
  if (chatFeatures.runTools.size > 0 && !chatFeatures.yes && !ctx.terminal.interactive && !ctx.globals.dryRun) {
    throw new UsageError(
      '--run-tool runs commands the model asks for; without a terminal to confirm each run, give --yes',
      {
        hint: 'add --yes to run them without asking',
      },
    );
  }

  // Checked and locked before anything is sent or asked: a file textgen may not replace is refused now, not after
  // the answer was paid for, and a second chat on the same file is refused instead of losing a turn.
  const files = await import('./conversation-file.js');
  const held: Array<{ release(): void }> = [];
  try {
    const continued =
      resume !== undefined ? await files.openConversationFile('--continue', resume, ctx.cwd) : undefined;
    if (continued) held.push(continued);
    let saved = continued;
    if (save !== undefined) {
      const { checkDestination } = await import('../config/destination.js');
      const same =
        continued !== undefined &&
        (await checkDestination('--save', save, { cwd: ctx.cwd })).target === continued.dest.target;
      if (!same) {
        saved = await files.openConversationFile('--save', save, ctx.cwd, { refuseExisting: options.force !== true });
        held.push(saved);
      }
    } else if (options.force === true) {
      throw new UsageError('--force only applies to --save', { hint: 'drop --force, or give --save FILE' });
    }
    const history = continued !== undefined ? await files.readConversation(continued.dest, ctx.cwd) : [];
    return await runOneChat(ctx, setup, {
      added,
      history,
      system,
      readers,
      readStdin,
      format,
      saveTo: saved,
      features: chatFeatures,
    });
  } finally {
    for (const h of held) h.release();
  }
}

async function runOneChat(
  ctx: Context,
  setup: ChatSetup,
  o: {
    added: ChatMessage[];
    history: ChatMessage[];
    system: string | undefined;
    readers: string[];
    readStdin: () => Promise<string>;
    format: OutputFormat;
    saveTo: ConversationFile | undefined;
    features: ChatFeatureSetup;
  },
): Promise<number> {
  const { added, history, system, readers, readStdin, format } = o;
  const stdinFree = readers.length === 0;
  if (
    added.length === 0 &&
    stdinFree &&
    ctx.terminal.interactive &&
    ctx.terminal.stdoutIsTTY &&
    format === 'text' &&
    !ctx.output().jmes &&
    !setup.present.raw
  ) {
    if (o.features.runTools.size > 0 || o.features.schemaRetries > 0)
      throw new UsageError(
        '--run-tool and --schema-retries need a message: the interactive conversation sends the tools but runs none',
        {
          hint: 'give the message as words after chat, or with --message',
        },
      );
    const { runInteractiveChat } = await import('./interactive.js');
    return runInteractiveChat(ctx, setup, {
      history: assembleConversation(history, system, []),
      saveTo: o.saveTo?.dest,
    });
  }
  if (added.length === 0 && stdinFree && !ctx.terminal.stdinIsTTY) {
    const piped = await readStdin();
    if (piped.trim() !== '') added.push({ role: 'user', content: piped.replace(/\r?\n$/, '') });
  }
  const conversation = assembleConversation(history, system, added);
  if (added.length === 0 || !conversation.some((m) => m.role !== 'system')) {
    throw new UsageError(
      'nothing to send: give a message as words after chat, with --message user=TEXT or --messages @file.json, or on stdin',
      {
        hint: 'on a terminal, textgen chat with no message opens a conversation',
      },
    );
  }

  if (conversation.some((m) => m.role === 'tool')) {
    const { checkToolResults } = await import('./messages.js');
    checkToolResults(conversation);
  }

  const ready = await prepareChat(ctx, setup);
  const stream =
    setup.stream === 'auto' ? ctx.terminal.stdoutIsTTY && format === 'text' && !ctx.output().jmes : setup.stream;
  const { runAnswerRounds } = await import('./answer-rounds.js');
  const { answerChecker, wantsJson } = await import('./response-format.js');
  const f = o.features;
  const outcome = await runAnswerRounds(
    ctx,
    {
      op: ready.op,
      profile: ready.profile,
      request: { messages: conversation, parameters: ready.parameters, ...ready.features },
      target: { ...ready.target, stream },
      extra: setup.extra,
      present: { ...setup.present, json: wantsJson(ready.features.response_format) },
    },
    {
      runTools: f.runTools,
      maxToolRounds: f.maxToolRounds,
      toolTimeoutMs: f.toolTimeoutMs,
      yes: f.yes,
      check: await answerChecker(ready.features.response_format),
      schemaRetries: f.schemaRetries,
    },
  );
  if (outcome !== undefined && o.saveTo !== undefined) {
    const { writeConversation } = await import('./conversation-file.js');
    // The answer is on stdout already; what cannot be written now is exit 7, naming the file and the cause.
    await ctx.out.flush();
    await writeConversation(o.saveTo.dest, [...conversation, ...outcome.added]);
  }
  return 0;
}

async function readExtra(value: string, io: JsonOptionIo): Promise<Record<string, unknown>> {
  const parsed = await readJsonOption('--extra', value, io);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UsageError('--extra must be a JSON object of body fields');
  refusePrototypeKeys('--extra', parsed);
  return parsed as Record<string, unknown>;
}

/** `--api`: one of the chat APIs, by name. */
function chatApiOf(value: string | undefined): ChatApi | undefined {
  if (value === undefined) return undefined;
  if ((CHAT_APIS as readonly string[]).includes(value)) return value as ChatApi;
  throw new UsageError(`--api must be one of ${CHAT_APIS.join(', ')}, got ${JSON.stringify(value)}`);
}
