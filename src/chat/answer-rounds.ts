/**
 * One `chat` turn that may take several requests: the model calls tools that `--run-tool` can run (their results
 * go back and the conversation continues, up to `--max-tool-rounds` requests), or a structured answer does not
 * check out and `--schema-retries` asks again with what was wrong. Each request's output is held
 * (src/chat/run-chat.ts `sendChatTurn`) and only the last answer is printed, so `| jq` sees one document. Without
 * either there is one request, shown as it streams.
 */
import type { Context } from '../context.js';
import { AnswerRejected } from '../contract/errors.js';
import type { ChatMessage, ChatResult, ToolCall } from '../contract/chat.js';
import { runChatTurn, sendChatTurn, type ChatTurn } from './run-chat.js';
import { runToolCommand } from './tool-runner.js';

export interface AnswerRounds {
  /** `--run-tool`: tool name → argv. */
  runTools: Map<string, string[]>;
  maxToolRounds: number;
  toolTimeoutMs: number;
  /** `--yes`: run without asking (on a terminal each run is confirmed otherwise). */
  yes: boolean;
  /** The answer's check (--response-format json_*), and how many times to ask again. */
  check?: ((content: string) => string | undefined) | undefined;
  schemaRetries: number;
}

export interface TurnOutcome {
  result: ChatResult;
  /** The messages this turn added after the conversation it was given: tool rounds, retries, the answer. */
  added: ChatMessage[];
}

/** The turn, its rounds, the last answer printed; undefined after --dry-run (only the first request is shown). */
export async function runAnswerRounds(
  ctx: Context,
  turn: ChatTurn,
  rounds: AnswerRounds,
): Promise<TurnOutcome | undefined> {
  if (rounds.runTools.size === 0 && rounds.check === undefined) {
    const result = await runChatTurn(ctx, turn);
    return result === undefined ? undefined : { result, added: [answerMessage(result)] };
  }
  const added: ChatMessage[] = [];
  let retriesLeft = rounds.schemaRetries;
  for (let request = 1; ; request++) {
    const answer = await sendChatTurn(ctx, {
      ...turn,
      hold: true,
      request: { ...turn.request, messages: [...turn.request.messages, ...added] },
    });
    if (answer === undefined) return undefined;
    const { result } = answer;
    const first = result.choices[0];
    const calls = first?.message.tool_calls ?? [];
    if (calls.length > 0 && calls.every((c) => rounds.runTools.has(c.function.name))) {
      if (request >= rounds.maxToolRounds) {
        throw new AnswerRejected(
          `the model still calls tools after ${rounds.maxToolRounds} requests (--max-tool-rounds ${rounds.maxToolRounds})`,
          { hint: 'raise --max-tool-rounds, or look at what the tools answer (-v shows each run on stderr)' },
        );
      }
      added.push(answerMessage(result));
      for (const call of calls) added.push(await runCall(ctx, call, rounds));
      continue;
    }
    // A call of a tool without --run-tool ends the loop: the calls are printed, as without --run-tool.
    if (rounds.check !== undefined && calls.length === 0) {
      const problem = rounds.check(first?.message.content ?? '');
      if (problem !== undefined) {
        if (retriesLeft > 0) {
          retriesLeft--;
          ctx.reporter.warn(`${problem}; asking again (--schema-retries: ${retriesLeft} left)`);
          added.push(answerMessage(result), {
            role: 'user',
            content: `Your answer was rejected: ${problem}. Answer again with only the corrected JSON document.`,
          });
          continue;
        }
        throw new AnswerRejected(problem, {
          hint:
            rounds.schemaRetries > 0
              ? `still wrong after ${rounds.schemaRetries} ${rounds.schemaRetries === 1 ? 'retry' : 'retries'}`
              : '--schema-retries N asks again with the errors',
        });
      }
    }
    await answer.present();
    added.push(answerMessage(result));
    return { result, added };
  }
}

/** The first answer as the assistant turn of the conversation (what --save writes and the next round sends). */
export function answerMessage(result: ChatResult): ChatMessage {
  const message = result.choices[0]?.message;
  const calls = message?.tool_calls;
  return {
    role: 'assistant',
    content: message?.content ?? '',
    ...(calls !== undefined && calls.length > 0 ? { tool_calls: calls } : {}),
  };
}

/** Runs one call (asked first on a terminal, unless --yes); the tool message that answers it. */
async function runCall(ctx: Context, call: ToolCall, rounds: AnswerRounds): Promise<ChatMessage> {
  const argv = rounds.runTools.get(call.function.name)!;
  const reply = (content: string): ChatMessage => ({ role: 'tool', tool_call_id: call.id, content });
  let input = call.function.arguments.trim() === '' ? '{}' : call.function.arguments;
  try {
    input = JSON.stringify(JSON.parse(input));
  } catch {
    // The model's arguments are not JSON: the command gets them as they came, and is told nothing else.
  }
  if (!rounds.yes) {
    const prompter = await ctx.prompter();
    // The model's words on the question line: its controls are shown, not obeyed.
    const { visibleInLine } = await import('../output/visible.js');
    const shown = visibleInLine(input.length > 200 ? `${input.slice(0, 200)}…` : input);
    const ok = await prompter.confirm(`run ${call.function.name} (${argv.join(' ')}) with ${shown}?`, {
      default: false,
    });
    if (!ok) return reply('error: the user declined to run this tool');
  }
  ctx.reporter.info(`running tool ${call.function.name}: ${argv.join(' ')}`);
  const run = await runToolCommand(argv, input, { timeoutMs: rounds.toolTimeoutMs, signal: ctx.signal, cwd: ctx.cwd });
  if (!run.ok) ctx.reporter.warn(`tool ${call.function.name}: ${run.content.split('\n')[0]!.replace(/^error: /, '')}`);
  return reply(run.content);
}
