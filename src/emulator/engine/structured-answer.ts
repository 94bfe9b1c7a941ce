/**
 * What a chat turn answers when the request brings tools or a response format: text, a JSON document, or tool
 * calls. Protocol-neutral; every chat route of `serve` (and the Responses API) uses it. The API, kept stable:
 *
 * - `decideTurn(request)`: the decision alone, no engine (`text`, `json` with its schema, or `tool_calls` naming the
 *   tools to call). The rule: `tool_choice` `none` (or no tools) → no calls; a named function → that one;
 *   `required` → the tools the last user message names, else the first tool; `auto` (the default with tools) → the
 *   tools the last user message names, only while the conversation ends with that user message (after a tool
 *   result the model answers in words, so an SDK's tool loop ends). With `parallel_tool_calls: false` one call at
 *   most. Without calls, `response_format` `json_schema` → JSON for its schema, `json_object` → a JSON object.
 * - `planTurn(engine, request, options)`: the answer. `{kind: 'text'}` means "generate as before"
 *   (`conversationMessages` + `startChatTurn` in conversation.ts, with logprobs and all); otherwise the `n`
 *   choices, each with its `content` (the JSON text; '' for calls), `tool_calls` and `finish_reason`, and the token
 *   counts. The deterministic engine makes values up from the schema (schema-value.ts), seeded by the request's
 *   `seed` or else by the conversation, so the same request gives the same answer; an engine with `generateJson`
 *   (llama) generates them under the schema's grammar, the tool chosen by the same rule.
 * - `choicePieces(choice)`: the streaming form, pieces in order: `{type: 'text', text}` fragments of the JSON, or
 *   per call `{type: 'tool_call', delta: {index, id, name, arguments: ''}}` then argument fragments
 *   `{type: 'tool_call', delta: {index, arguments}}` — the order the OpenAI-shaped streams send them in.
 */
import type { ChatTool, ToolCall, ToolCallDelta } from '../../contract/chat.js';
import { chatEngineParameters, conversationPrompt } from './conversation.js';
import type { Engine } from './engine.js';
import { createRng, hashString, mix } from './random.js';
import { type JsonSchema, schemaValue } from './schema-value.js';
import type {
  ConversationMessage,
  EngineOptions,
  StructuredChoice,
  TurnMessage,
  TurnDecision,
  TurnPlan,
  TurnRequest,
} from './types.js';

export type { StructuredChoice, TurnDecision, TurnMessage, TurnPlan, TurnRequest } from './types.js';

export type TurnPiece = { type: 'text'; text: string } | { type: 'tool_call'; delta: ToolCallDelta };

/** The answer a json_object request gets from the deterministic engine. */
const JSON_OBJECT_SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
/** How long a structured answer may get when the request does not say (JSON runs longer than a chat line). */
export const STRUCTURED_MAX_TOKENS = 512;
/** Characters per streamed fragment of a structured answer. */
const PIECE_LENGTH = 8;

export function decideTurn(request: TurnRequest): TurnDecision {
  const tools = request.tools ?? [];
  const choice = request.tool_choice ?? 'auto';
  const single = request.parallel_tool_calls === false;
  if (tools.length > 0 && choice !== 'none') {
    if (typeof choice === 'object') {
      const named = tools.find((t) => t.function.name === choice.function);
      if (named) return { kind: 'tool_calls', tools: [named] };
    } else {
      const last = request.messages.at(-1);
      const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
      const named = lastUser ? namedTools(tools, lastUser.content ?? '') : [];
      const picked =
        choice === 'required' ? (named.length > 0 ? named : [tools[0]!]) : last?.role === 'user' ? named : [];
      if (picked.length > 0) return { kind: 'tool_calls', tools: single ? picked.slice(0, 1) : picked };
    }
  }
  const format = request.response_format;
  if (format?.type === 'json_schema') return { kind: 'json', schema: format.json_schema.schema };
  if (format?.type === 'json_object') return { kind: 'json', schema: undefined };
  return { kind: 'text' };
}

/** The request brings tools or a response format other than text. */
export function asksForStructure(request: TurnRequest): boolean {
  return (request.tools ?? []).length > 0 || (request.response_format ?? { type: 'text' }).type !== 'text';
}

/** The tools whose names the text mentions as words, in the order of the tool list. */
function namedTools(tools: readonly ChatTool[], text: string): ChatTool[] {
  const lower = text.toLowerCase();
  return tools.filter((t) => {
    const name = t.function.name.toLowerCase();
    for (let at = lower.indexOf(name); at >= 0; at = lower.indexOf(name, at + 1)) {
      const before = lower[at - 1];
      const after = lower[at + name.length];
      if (!isNameChar(before) && !isNameChar(after)) return true;
    }
    return false;
  });
}

function isNameChar(c: string | undefined): boolean {
  return c !== undefined && /[a-z0-9_-]/.test(c);
}

/** The history as the engines' chat templates take it: tool calls and tool results written out as text. */
export function conversationMessages(messages: readonly TurnMessage[]): ConversationMessage[] {
  return messages.map((m) => {
    if (m.role === 'tool')
      return { role: 'tool', content: `(result of ${m.tool_call_id ?? 'a call'}) ${m.content ?? ''}` };
    const calls = (m.tool_calls ?? []).map((c) => `[call ${c.function.name}(${c.function.arguments})]`).join(' ');
    const content = [m.content ?? '', calls].filter((s) => s !== '').join('\n');
    return { role: m.role, content };
  });
}

export async function planTurn(
  engine: Engine,
  request: TurnRequest,
  options: EngineOptions & { n?: number | undefined } = {},
): Promise<TurnPlan> {
  // An engine that answers turns itself (an upstream service) decides whether to call a tool, as a model does.
  if (engine.answerTurn && asksForStructure(request)) return engine.answerTurn(request, options);
  const decision = decideTurn(request);
  if (decision.kind === 'text') return decision;
  const n = options.n ?? 1;
  const messages = conversationMessages(request.messages);
  const prompt = conversationPrompt(messages);
  const seed = request.sampling.seed ?? hashString(prompt);
  const choices: StructuredChoice[] = [];
  let promptTokens = 0;
  const tokenizer = await engine.tokenizer();
  const count = (text: string) => tokenizer.encode(text).length;

  for (let i = 0; i < n; i++) {
    const draw = createRng(mix(seed, i));
    const sampling = { ...request.sampling, max_tokens: request.sampling.max_tokens ?? STRUCTURED_MAX_TOKENS };
    const parameters = chatEngineParameters(sampling, i);
    if (decision.kind === 'json') {
      if (engine.generateJson) {
        const answer = await engine.generateJson({ messages, schema: decision.schema, parameters }, options);
        promptTokens = answer.promptTokens;
        choices.push({
          content: answer.text,
          tool_calls: [],
          finish_reason: answer.stopReason === 'max_tokens' || answer.stopReason === 'token_limit' ? 'length' : 'stop',
          completion_tokens: answer.generatedTokens,
        });
      } else {
        const content = JSON.stringify(schemaValue(decision.schema ?? JSON_OBJECT_SCHEMA, draw));
        choices.push({ content, tool_calls: [], finish_reason: 'stop', completion_tokens: count(content) });
      }
      continue;
    }
    const calls: ToolCall[] = [];
    let tokens = 0;
    let cut = false;
    for (const [k, tool] of decision.tools.entries()) {
      const schema = tool.function.parameters ?? { type: 'object', properties: {} };
      let args: string;
      if (engine.generateJson) {
        const answer = await engine.generateJson({ messages: withHint(messages, tool), schema, parameters }, options);
        promptTokens = answer.promptTokens;
        tokens += answer.generatedTokens;
        cut ||= answer.stopReason === 'max_tokens' || answer.stopReason === 'token_limit';
        args = answer.text;
      } else {
        args = JSON.stringify(schemaValue(schema as JsonSchema, draw));
        tokens += count(tool.function.name) + count(args);
      }
      calls.push({
        id: callId(mix(seed, i, k)),
        type: 'function',
        function: { name: tool.function.name, arguments: args },
      });
    }
    choices.push({
      content: '',
      tool_calls: calls,
      finish_reason: cut ? 'length' : 'tool_calls',
      completion_tokens: tokens,
    });
  }
  if (!engine.generateJson) promptTokens = count(prompt);
  return { kind: decision.kind, choices, prompt_tokens: promptTokens };
}

/**
 * The conversation with a system line asking for the call's arguments: added to the first system message, or as one
 * in front (chat templates take a system message only there).
 */
function withHint(messages: readonly ConversationMessage[], tool: ChatTool): ConversationMessage[] {
  const hint = `Call the function ${tool.function.name}${tool.function.description ? ` (${tool.function.description})` : ''}: answer with its arguments as JSON.`;
  const [first, ...rest] = messages;
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${hint}` }, ...rest];
  return [{ role: 'system', content: hint }, ...messages];
}

/** `call_` and 24 letters and digits, as OpenAI's ids look, from the seed. */
function callId(seed: number): string {
  const draw = createRng(seed);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let id = 'call_';
  for (let i = 0; i < 24; i++) id += alphabet[Math.floor(draw() * alphabet.length)];
  return id;
}

/** The streamed pieces of one structured choice, in the order the OpenAI-shaped streams send them. */
export function* choicePieces(choice: StructuredChoice): Generator<TurnPiece> {
  for (const text of fragments(choice.content)) yield { type: 'text', text };
  for (const [index, call] of choice.tool_calls.entries()) {
    yield { type: 'tool_call', delta: { index, id: call.id, name: call.function.name, arguments: '' } };
    for (const text of fragments(call.function.arguments))
      yield { type: 'tool_call', delta: { index, arguments: text } };
  }
}

/** Fragments of a few code points each, whose concatenation is the text. */
function fragments(text: string): string[] {
  return text.match(new RegExp(`[^]{1,${PIECE_LENGTH}}`, 'gu')) ?? [];
}
