/**
 * Pieces of the choice → canonical mapping that the plain answer and the stream share: stop reasons, token data,
 * the echoed prompt, and the warnings the user must see.
 */
import type {
  CanonicalRequest,
  ReturnOptions,
  ServiceWarning,
  StopReason,
  TokenInfo,
} from '../../../src/contract/canonical.js';
import { isRecord } from '../../../src/contract/wire-fields.js';
import { isoFromEpoch } from '../../common/chat-completions.js';
import type { CompletionsKind } from './request.js';

/**
 * `finish_reason` → watsonx's stop reasons. The service strips a stop sequence from the text, so "stop" alone cannot
 * tell a stop sequence from the end of text. When the request set stop sequences we report `stop_sequence`: those
 * callers set them as the expected terminator, and reporting `eos_token` would claim the sequence was not met.
 * Without stop sequences "stop" can only be the end of text. `content_filter` is kept (with a warning), and values
 * later API versions add are kept as they are.
 */
export function stopReasonOf(finish: unknown, request: CanonicalRequest): StopReason {
  if (typeof finish !== 'string' || finish === '') return 'not_finished';
  if (finish === 'length') return 'max_tokens';
  if (finish === 'stop') return (request.parameters?.stop_sequences?.length ?? 0) > 0 ? 'stop_sequence' : 'eos_token';
  return finish;
}

function serviceName(kind: CompletionsKind): string {
  return kind === 'azure-openai' ? 'Azure OpenAI' : 'the service';
}

export function contentFilterWarning(kind: CompletionsKind, index: number): ServiceWarning {
  return {
    id: 'content_filter',
    message: `${serviceName(kind)}'s content filter cut the output of choice ${index} short (finish_reason content_filter); the text is incomplete`,
  };
}

/** Warnings owed for the request itself, whatever the answer. */
export function requestWarnings(kind: CompletionsKind, request: CanonicalRequest): ServiceWarning[] {
  const p = request.parameters ?? {};
  if (p.include_stop_sequence === true && (p.stop_sequences?.length ?? 0) > 0) {
    return [
      {
        id: 'include_stop_sequence',
        message: `${kind} never includes the stop sequence in the text: include_stop_sequence true has no effect`,
      },
    ];
  }
  return [];
}

/**
 * Why choice `i` is not a completions choice, or undefined when it is one. A choice in chat completions' shape
 * (`message`, or `delta` in a stream) is named as such: without this check a chat answer printed nothing and exited
 * 0. Streams may carry choices without text (annotations, docs/protocols/azure-openai.md); a whole answer's choices have it
 * (the SDK's `CompletionChoice.text` is required).
 */
export function choiceProblem(choice: unknown, i: number, whole: boolean): string | undefined {
  if (!isRecord(choice)) return `choices[${i}] is not an object`;
  if (choice.text !== undefined && choice.text !== null && typeof choice.text !== 'string')
    return `choices[${i}].text is not a string`;
  if (typeof choice.text === 'string') return undefined;
  for (const chat of ['message', 'delta'] as const) {
    if (choice[chat] !== undefined) {
      return `choices[${i}] has no "text" string but a "${chat}": the chat-completions shape, where textgen calls completions (/completions)`;
    }
  }
  return whole ? `choices[${i}] has no "text" string` : undefined;
}

/** Token data is returned when any of the options that become `logprobs` was asked for. */
export function wantsTokens(options: ReturnOptions | undefined): boolean {
  return Boolean(options && (options.generated_tokens || options.token_logprobs || (options.top_n_tokens ?? 0) > 0));
}

/** A choice's `logprobs` when it carries usable parallel arrays. */
export interface TokenData {
  tokens: string[];
  logprobs: unknown[];
  top: unknown[];
}

export function readTokenData(value: unknown): TokenData | undefined {
  if (!isRecord(value) || !Array.isArray(value.tokens)) return undefined;
  return {
    tokens: value.tokens.map((t) => (typeof t === 'string' ? t : '')),
    logprobs: Array.isArray(value.token_logprobs) ? value.token_logprobs : [],
    top: Array.isArray(value.top_logprobs) ? value.top_logprobs : [],
  };
}

/** One token as watsonx reports it: text always, logprob and top tokens when they were asked for. */
export function tokenInfo(data: TokenData, i: number, options: ReturnOptions): TokenInfo {
  const info: TokenInfo = { text: data.tokens[i] ?? '' };
  const logprob = data.logprobs[i];
  if (options.token_logprobs && typeof logprob === 'number') info.logprob = logprob;
  const topN = options.top_n_tokens ?? 0;
  const top = data.top[i];
  if (topN > 0 && isRecord(top)) {
    info.top_tokens = Object.entries(top)
      .filter((e): e is [string, number] => typeof e[1] === 'number')
      .sort((a, b) => b[1] - a[1])
      .slice(0, topN)
      .map(([text, lp]) => ({ text, logprob: lp }));
  }
  return info;
}

/**
 * How many leading tokens spell the first `chars` characters (the echoed prompt). Token texts are
 * used rather than `text_offset`, whose origin differs between servers (prompt start or completion start).
 */
export function tokensSpanning(tokens: readonly string[], chars: number): { count: number; rest: number } {
  let rest = chars;
  let count = 0;
  while (rest > 0 && count < tokens.length) {
    rest -= tokens[count]!.length;
    count++;
  }
  return { count, rest: Math.max(0, rest) };
}

/** The echoed prompt's length when echo was asked for (the text then starts with the prompt), else 0. */
export function echoLength(request: CanonicalRequest): number {
  return request.parameters?.return_options?.input_text ? (request.input ?? '').length : 0;
}

/** The one formatter of `created` seconds (profiles/common/chat-completions.ts), under the name this client uses. */
export const isoFromEpochSeconds = isoFromEpoch;
