/**
 * `chat --batch FILE.jsonl`: one conversation per line, `{"messages": [...], "parameters"?: {...}, "id"?: ...}`, run
 * through the batch machinery of `complete --batch` (src/batch/run-batch.ts): the same input order in the output,
 * concurrency that backs off on 429, --resume, --shard, --fail-fast and --dry-run (docs/batch.md). A line's record
 * holds what `chat -o json` prints for it (or, with --raw, the provider's body); `--system` goes first in every
 * conversation; a line's parameters override the flags for that line. Answers are never streamed.
 */
import type { Context } from '../context.js';
import { AnswerRejected, UsageError } from '../contract/errors.js';
import { readWhole } from '../call/answer.js';
import { printDryRun } from '../call/send.js';
import { checkBatchFlags } from '../batch/common-checks.js';
import { compileResultQuery, resultJson } from '../batch/json-query.js';
import { runBatch } from '../batch/run-batch.js';
import { createLineSender } from '../call/line-sender.js';
import type { BatchSettings } from '../options/batch-settings.js';
import type { HttpRequestSpec } from '../contract/http.js';
import type { ChatRequest } from '../contract/chat.js';
import { chatInCanonicalOrder } from './aggregate.js';
import { prepareChat, type ChatSetup } from './prepare.js';
import { assembleConversation, checkMessageList } from './messages.js';
import { checkChatParameterObject } from './parameters.js';
import { checkChatFeatures, checkChatSupport, type ChatFeatureRequest } from './support.js';
import { checkToolResults } from './messages.js';
import type { SchemaCompiler } from './json-schema.js';
import { checkToolChoiceValue, checkToolsWith } from './tools.js';
import { type AnswerCheck, answerCheckerWith, jsonSchemaFormatWith } from './response-format.js';
import { isRecord } from '../contract/wire-fields.js';
import { fromProviderLine, isProviderLine } from '../batch/provider-line.js';

interface ChatLine {
  request: ChatRequest;
  spec?: HttpRequestSpec;
  /** A structured answer's check (--json-schema, a line's response_format): a bad answer is the line's error. */
  check?: AnswerCheck | undefined;
}

const KEYS = new Set([
  'messages',
  'parameters',
  'id',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
]);

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

export interface ChatBatchFlags {
  /** Flags that give a conversation of their own, which a batch cannot take. */
  given: string[];
  system: string | undefined;
  /** The JSON-valued options as given, to refuse `@-` when the lines come from stdin. */
  raw: Record<string, unknown>;
}

export async function runChatBatch(
  ctx: Context,
  setup: ChatSetup,
  settings: BatchSettings,
  flags: ChatBatchFlags,
): Promise<number> {
  checkBatchFlags(ctx, settings, { inputFlags: flags.given, raw: flags.raw });
  const query = await compileResultQuery(ctx.output().jmes);
  const warned = new Set<string>();
  const warnOnce = (m: string) => {
    if (warned.has(m)) return;
    warned.add(m);
    ctx.reporter.warn(m);
  };
  const ready = await prepareChat(ctx, setup, warnOnce);
  const { profile, op } = ready;
  const target = { ...ready.target, stream: false };
  const sender = await createLineSender(ctx, profile, op);
  const specOf = (line: ChatLine) => (line.spec ??= op.build(line.request, target, profile, setup.extra));
  // What the profile lacks (a space, a project) would fail every line: a usage error now, before any line is read.
  specOf({ request: { messages: [{ role: 'user', content: 'x' }], parameters: ready.parameters, ...ready.features } });
  // Lines are parsed synchronously by the batch machinery: a line's tool schemas are compiled here, once ajv is in.
  const { loadSchemaCompiler } = await import('./json-schema.js');
  const compile = await loadSchemaCompiler();

  return runBatch<ChatLine>(ctx, settings, {
    retries: profile.retries,
    begin: () => sender.begin(ctx.signal),
    parse(text) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        throw new UsageError(`the line is not JSON: ${(e as Error).message}`);
      }
      // A line in the providers' batch format (custom_id, url, body) is read as the conversation it holds.
      if (isProviderLine(value)) value = fromProviderLine(value, 'chat');
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new UsageError(`a line must be a JSON object {"messages": [...]}, got ${describe(value)}`);
      }
      const obj = value as Record<string, unknown>;
      let idJson: string | undefined;
      if (obj.id !== undefined) {
        if (typeof obj.id !== 'string' && !(typeof obj.id === 'number' && Number.isFinite(obj.id)))
          throw new UsageError(`"id" must be a string or a number, got ${describe(obj.id)}`);
        idJson = JSON.stringify(obj.id);
      }
      const fail = (message: string): never => {
        throw Object.assign(new UsageError(message), { lineId: idJson });
      };
      for (const key of Object.keys(obj))
        if (!KEYS.has(key))
          fail(
            `unknown field "${key}" on the line (a line has messages, parameters, id, tools, tool_choice, parallel_tool_calls and response_format)`,
          );
      if (obj.messages === undefined) fail('the line has no "messages"');
      let request: ChatRequest | undefined;
      try {
        const messages = assembleConversation([], flags.system, checkMessageList(obj.messages, 'messages'));
        const parameters =
          obj.parameters === undefined
            ? ready.parameters
            : checkChatSupport(
                { ...setup.parameters, ...checkChatParameterObject(obj.parameters, '"parameters" of the line') },
                op.capabilities,
                op.kind,
                {
                  ignoreUnsupported: setup.ignoreUnsupported,
                  warn: warnOnce,
                },
              );
        const features = checkChatFeatures(lineFeatures(obj, ready.features, compile), op.capabilities, op.kind, {
          ignoreUnsupported: setup.ignoreUnsupported,
          warn: warnOnce,
        });
        checkToolResults(messages);
        request = { messages, parameters, ...features };
      } catch (e) {
        fail((e as Error).message);
      }
      return { payload: { request: request!, check: answerCheckerWith(request!.response_format, compile) }, idJson };
    },
    async run(line, signal) {
      const res = await sender.send(specOf(line), signal);
      const { result, json } = await readWhole(res, { kind: op.kind, secrets: profile.secrets }, (body) =>
        op.parse(body, line.request),
      );
      const problem =
        line.check && !result.choices[0]?.message.tool_calls
          ? line.check(result.choices[0]?.message.content ?? '')
          : undefined;
      if (problem !== undefined) throw new AnswerRejected(problem);
      return resultJson(setup.present.raw ? json : chatInCanonicalOrder(result), query);
    },
    wireRequest: (line) => specOf(line),
    printRequest: (spec) => printDryRun(ctx, profile, spec),
  });
}

/**
 * A line's own tools, tool choice, parallel_tool_calls and response_format (OpenAI's shapes), over the flags'. A
 * line's `tools` replace the flags' (a choice naming a tool is checked against the line's tools).
 */
function lineFeatures(
  obj: Record<string, unknown>,
  flags: ChatFeatureRequest,
  compile: SchemaCompiler,
): ChatFeatureRequest {
  const out: ChatFeatureRequest = { ...flags };
  if (obj.tools !== undefined) out.tools = checkToolsWith(obj.tools, '"tools"', compile);
  if (obj.tool_choice !== undefined)
    out.tool_choice = checkToolChoiceValue(obj.tool_choice, out.tools, '"tool_choice"');
  if (obj.parallel_tool_calls !== undefined) {
    if (typeof obj.parallel_tool_calls !== 'boolean')
      throw new UsageError('"parallel_tool_calls" must be true or false');
    out.parallel_tool_calls = obj.parallel_tool_calls;
  }
  if (obj.response_format !== undefined) {
    const f = obj.response_format;
    if (!isRecord(f) || (f.type !== 'text' && f.type !== 'json_object' && f.type !== 'json_schema'))
      throw new UsageError('"response_format" must be {"type": "text" | "json_object" | "json_schema", ...}');
    out.response_format =
      f.type === 'json_schema'
        ? jsonSchemaFormatWith(f.json_schema, undefined, '"response_format.json_schema"', compile)
        : { type: f.type };
  }
  return out;
}
