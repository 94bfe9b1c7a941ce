/**
 * Where a conversation comes from: `--continue FILE` (the history), `--system`, `--messages JSON|@file|@-`,
 * repeatable `--message ROLE=TEXT`, the words after the command (one user message), or stdin (one user message).
 * Every message is checked by one zod schema; a failure names the source, the index and the field.
 */
import * as z from 'zod';
import { UsageError } from '../contract/errors.js';
import { CHAT_ROLES, type ChatMessage, type ChatRole, type ToolCall } from '../contract/chat.js';
import { isRecord } from '../contract/wire-fields.js';

const messageSchema = z.strictObject({ role: z.enum(CHAT_ROLES), content: z.string() });

/** What a value is, for a message; `quote: false` names only its kind (for file content, never shown back). */
function describe(value: unknown, quote = true): string {
  if (!quote)
    return value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`.replace(/^a o/, 'an o');
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/**
 * One message, checked: `where` names it for messages ("--messages[2]", "history.jsonl line 3"). Unknown roles and
 * fields are refused, as the services refuse them. `quote: false` (a file's lines) never repeats what the value
 * holds: a --continue aimed at a file that is not a conversation must not print that file's contents.
 */
export function checkMessage(value: unknown, where: string, { quote = true }: { quote?: boolean } = {}): ChatMessage {
  if (isRecord(value) && (value.role === 'tool' || (value.role === 'assistant' && value.tool_calls !== undefined)))
    return checkToolMessage(value, where);
  const parsed = messageSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    throw new UsageError(
      quote
        ? `${where}: unknown field "${issue.keys[0]}" (a message has role and content)`
        : `${where}: a field other than role and content (a message has only those two)`,
    );
  }
  const field = issue.path[0];
  if (field === undefined)
    throw new UsageError(`${where}: a message must be an object {"role", "content"}, got ${describe(value, quote)}`);
  const got = (value as Record<string, unknown>)[String(field)];
  // `--messages[2].role`, but `talk.jsonl line 3: role`.
  const at = (name: string) => (where.endsWith(']') ? `${where}.${name}` : `${where}: ${name}`);
  if (got === undefined) throw new UsageError(`${where}: "${String(field)}" is missing`);
  if (field === 'role')
    throw new UsageError(`${at('role')} must be one of ${CHAT_ROLES.join(', ')}, got ${describe(got, quote)}`);
  throw new UsageError(`${at('content')} must be a string, got ${describe(got, quote)}`);
}

/** `--messages`' value, parsed: a non-empty JSON array of messages. */
export function checkMessageList(value: unknown, flag: string): ChatMessage[] {
  if (!Array.isArray(value))
    throw new UsageError(`${flag} must be a JSON array of {"role", "content"} messages, got ${describe(value)}`);
  if (value.length === 0) throw new UsageError(`${flag} is an empty array: give at least one message`);
  return value.map((m, i) => checkMessage(m, `${flag}[${i}]`));
}

/** `--message user=Hello` → a message; the role is what comes before the first `=`. */
export function parseMessageFlag(value: string): ChatMessage {
  const at = value.indexOf('=');
  const role = at === -1 ? '' : value.slice(0, at).trim().toLowerCase();
  if (!(CHAT_ROLES as readonly string[]).includes(role)) {
    throw new UsageError(
      `--message takes ROLE=TEXT with ROLE one of ${CHAT_ROLES.join(', ')}, got ${describe(value)}`,
      { hint: 'e.g. --message "user=What is a river?"' },
    );
  }
  return { role: role as ChatRole, content: value.slice(at + 1) };
}

/**
 * The conversation to send: the history, with `system` replacing (or adding) its first message, then the new
 * messages in the order they were given.
 */
export function assembleConversation(
  history: readonly ChatMessage[],
  system: string | undefined,
  added: readonly ChatMessage[],
): ChatMessage[] {
  const rest = system !== undefined && history[0]?.role === 'system' ? history.slice(1) : [...history];
  return [...(system !== undefined ? [{ role: 'system' as const, content: system }] : []), ...rest, ...added];
}

const toolCallSchema = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
});
const toolResultSchema = z.strictObject({
  role: z.literal('tool'),
  content: z.string(),
  tool_call_id: z.string().min(1),
});
const callingSchema = z.strictObject({
  role: z.literal('assistant'),
  // OpenAI's own messages say `"content": null` beside tool calls.
  content: z.string().nullable().optional(),
  tool_calls: z.array(toolCallSchema),
});

/**
 * A `tool` message (`{"role": "tool", "tool_call_id", "content"}`) or an assistant turn with `tool_calls`, as the
 * chat APIs and `--save` files write them. What is wrong is named by field, never by quoting the value.
 */
function checkToolMessage(value: Record<string, unknown>, where: string): ChatMessage {
  if (value.role === 'tool') {
    const parsed = toolResultSchema.safeParse(value);
    if (!parsed.success)
      throw new UsageError(
        `${where}: a tool message is {"role": "tool", "tool_call_id", "content"} (${issueText(parsed.error.issues[0])})`,
      );
    return { role: 'tool', content: parsed.data.content, tool_call_id: parsed.data.tool_call_id };
  }
  const parsed = callingSchema.safeParse(value);
  if (!parsed.success)
    throw new UsageError(
      `${where}: an assistant message with tool_calls has {"id", "type": "function", "function": {"name", "arguments"}} calls (${issueText(parsed.error.issues[0])})`,
    );
  const calls: ToolCall[] = parsed.data.tool_calls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.function.name, arguments: c.function.arguments },
  }));
  return { role: 'assistant', content: parsed.data.content ?? '', ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

function issueText(issue: z.core.$ZodIssue | undefined): string {
  if (issue === undefined) return 'invalid';
  if (issue.code === 'unrecognized_keys') return `unknown field "${issue.keys[0]}"`;
  const at = issue.path.map(String).join('.');
  return at === ''
    ? issue.message
    : `${at}: ${issue.code === 'invalid_type' ? 'missing or of the wrong type' : 'invalid'}`;
}

/**
 * `--tool-result ID=TEXT` or `ID=@file`: a tool message answering call ID. When the conversation continues a file,
 * ID must be a call of its last assistant turn (a result for no call is refused by every service).
 */
export async function parseToolResult(
  value: string,
  readFile: (path: string) => Promise<string>,
): Promise<ChatMessage> {
  const at = value.indexOf('=');
  const id = at === -1 ? '' : value.slice(0, at).trim();
  if (id === '')
    throw new UsageError(`--tool-result takes ID=TEXT or ID=@file, got ${describe(value)}`, {
      hint: 'the ID is the "id" of the tool call the answer printed',
    });
  const rest = value.slice(at + 1);
  const content = rest.startsWith('@') && rest.length > 1 ? await readFile(rest.slice(1)) : rest;
  return { role: 'tool', content, tool_call_id: id };
}

/** Every tool result must answer a call of the last assistant turn before it (history, then what was added). */
export function checkToolResults(conversation: readonly ChatMessage[]): void {
  let calls: Set<string> | undefined;
  for (const m of conversation) {
    if (m.role === 'assistant') calls = new Set((m.tool_calls ?? []).map((c) => c.id));
    else if (m.role === 'tool') {
      if (calls === undefined || calls.size === 0)
        throw new UsageError(
          `the tool result for "${m.tool_call_id}" answers no call: the assistant turn before it called no tool`,
        );
      if (!calls.has(m.tool_call_id ?? ''))
        throw new UsageError(
          `the tool result for "${m.tool_call_id}" answers no call of the last assistant turn (its calls: ${[...calls].join(', ')})`,
        );
    }
  }
}
