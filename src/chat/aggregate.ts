/** Folds streamed canonical chat chunks into one canonical result (what `-o json` prints after a stream). */
import type { ServiceWarning } from '../contract/canonical.js';
import type {
  ChatChoice,
  ChatChunk,
  ChatResult,
  ChatTokenLogprob,
  ChatUsage,
  FinishReason,
  ToolCall,
  ToolCallDelta,
} from '../contract/chat.js';

/** One tool call being streamed: the first piece of its index brings id and name, the rest argument text. */
interface CallState {
  id?: string;
  name?: string;
  args: string[];
}

interface ChoiceState {
  text: string[];
  finish: FinishReason;
  logprobs: ChatTokenLogprob[];
  calls: Map<number, CallState>;
}

function addCallPiece(calls: Map<number, CallState>, piece: ToolCallDelta): void {
  let call = calls.get(piece.index);
  if (!call) {
    call = { args: [] };
    calls.set(piece.index, call);
  }
  call.id ??= piece.id;
  call.name ??= piece.name;
  if (piece.arguments) call.args.push(piece.arguments);
}

/** The assembled calls of one answer, in index order. */
function assembled(calls: Map<number, CallState>): ToolCall[] {
  return [...calls.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, c]) => ({
      id: c.id ?? `call_${index}`,
      type: 'function',
      function: { name: c.name ?? '', arguments: c.args.join('') },
    }));
}

export class ChatAggregator {
  private readonly choices = new Map<number, ChoiceState>();
  private envelope: Pick<ChatResult, 'id' | 'model' | 'created_at'> = {};
  private usage: ChatUsage | undefined;
  private readonly warnings: ServiceWarning[] = [];

  constructor(private readonly provider: string) {}

  /** Adds a chunk; returns the warnings it brought. */
  add(chunk: ChatChunk): ServiceWarning[] {
    if (this.envelope.id === undefined && chunk.id !== undefined) this.envelope.id = chunk.id;
    if (this.envelope.model === undefined && chunk.model !== undefined) this.envelope.model = chunk.model;
    if (this.envelope.created_at === undefined && chunk.created_at !== undefined)
      this.envelope.created_at = chunk.created_at;
    if (chunk.usage) this.usage = { ...this.usage, ...chunk.usage };
    for (const c of chunk.choices) {
      let s = this.choices.get(c.index);
      if (!s) {
        s = { text: [], finish: 'not_finished', logprobs: [], calls: new Map() };
        this.choices.set(c.index, s);
      }
      if (c.content) s.text.push(c.content);
      for (const piece of c.tool_calls ?? []) addCallPiece(s.calls, piece);
      if (c.finish_reason !== undefined) s.finish = c.finish_reason;
      if (c.logprobs) s.logprobs.push(...c.logprobs);
    }
    for (const w of chunk.warnings ?? []) this.warnings.push(w);
    return chunk.warnings ?? [];
  }

  /** The text so far of one answer. */
  text(index = 0): string {
    return this.choices.get(index)?.text.join('') ?? '';
  }

  /** True while some answer has not said why it ended (or none began). */
  unfinished(): boolean {
    return this.choices.size === 0 || [...this.choices.values()].some((s) => s.finish === 'not_finished');
  }

  /** A stream that broke off or was interrupted: answers that had not ended end with `reason`. */
  markStopped(reason: FinishReason): void {
    if (this.choices.size === 0) this.choices.set(0, { text: [], finish: reason, logprobs: [], calls: new Map() });
    for (const s of this.choices.values()) if (s.finish === 'not_finished') s.finish = reason;
  }

  result(): ChatResult {
    const choices: ChatChoice[] = [...this.choices.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([index, s]): ChatChoice => {
        const message: ChatChoice['message'] = { role: 'assistant', content: s.text.join('') };
        if (s.calls.size > 0) message.tool_calls = assembled(s.calls);
        // As for whole answers (profiles/common/chat-completions.ts): an answer of tool calls ends in tool_calls.
        const finish = s.calls.size > 0 && s.finish === 'stop' ? 'tool_calls' : s.finish;
        return {
          index,
          message,
          finish_reason: finish,
          ...(s.logprobs.length > 0 ? { logprobs: s.logprobs } : {}),
        };
      });
    const out: ChatResult = { provider: this.provider, ...this.envelope, choices };
    if (this.usage) out.usage = this.usage;
    if (this.warnings.length > 0) out.warnings = this.warnings;
    return out;
  }
}

const RESULT_KEYS = ['provider', 'id', 'model', 'created_at', 'choices', 'usage', 'warnings'];
const CHOICE_KEYS = ['index', 'message', 'finish_reason', 'logprobs'];

function ordered<T extends object>(value: T, keys: readonly string[]): T {
  const v = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of keys) if (v[k] !== undefined) out[k] = v[k];
  for (const k of Object.keys(v)) if (!(k in out) && v[k] !== undefined) out[k] = v[k];
  return out as T;
}

/** The canonical result with its keys in the documented order, whichever provider produced it. */
export function chatInCanonicalOrder(result: ChatResult): ChatResult {
  const top = ordered(result, RESULT_KEYS);
  top.choices = result.choices.map((c) => ordered(c, CHOICE_KEYS));
  return top;
}
