/**
 * Readers for the loosely typed fields of Open Inference answers, shared by the whole-answer and the stream mapping.
 * Servers differ (docs/protocols/open-inference.md): `text_output` may be an array, token data may be missing, finish
 * reasons may use other servers' words.
 */
import type { CanonicalRequest, StopReason, TokenInfo, TopToken } from '../../../src/contract/canonical.js';

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function numberField(obj: unknown, key: string): number | undefined {
  if (!isRecord(obj)) return undefined;
  const v = obj[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** `text_output` as a string (Triton may send an array of strings: joined); undefined when absent or not text. */
export function textOutput(body: Record<string, unknown>): string | undefined {
  const v = body.text_output;
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v.join('');
  return undefined;
}

/** `{"error": "…"}` (every server), `{"error": {"message"}}` (proxies), and TGI's `error_type` as the code. */
export function errorOf(body: unknown): { message: string; code?: string } | undefined {
  if (!isRecord(body) || body.error === undefined || body.error === null) return undefined;
  const code = typeof body.error_type === 'string' && body.error_type !== '' ? { code: body.error_type } : {};
  const e = body.error;
  if (typeof e === 'string') return { message: e || 'the service reported an error', ...code };
  if (isRecord(e) && typeof e.message === 'string')
    return { message: e.message, ...(typeof e.code === 'string' ? { code: e.code } : code) };
  return { message: JSON.stringify(e), ...code };
}

/**
 * A finish reason → watsonx's stop reasons. `stop` (vLLM, OpenAI-style servers) means a stop sequence when the text
 * ends with one that was asked for, else the end-of-sequence token. Unknown words are kept.
 */
export function stopReasonOf(finishReason: unknown, text: string, request: CanonicalRequest): StopReason | undefined {
  if (typeof finishReason !== 'string' || finishReason === '') return undefined;
  switch (finishReason) {
    case 'length':
    case 'max_tokens':
    case 'maximum_tokens':
      return 'max_tokens';
    case 'eos_token':
    case 'eos':
    case 'end_of_text':
      return 'eos_token';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'stop':
      return endsWithStopSequence(text, request) ? 'stop_sequence' : 'eos_token';
    default:
      return finishReason;
  }
}

export function endsWithStopSequence(text: string, request: CanonicalRequest): boolean {
  return (request.parameters?.stop_sequences ?? []).some((s) => s !== '' && text.endsWith(s));
}

/** Token data goes into the canonical result only when return_options asked for it (the CLI always asks for `details`). */
export function wantsTokens(request: CanonicalRequest): boolean {
  const ro = request.parameters?.return_options;
  return Boolean(ro?.generated_tokens || ro?.token_logprobs || (ro?.top_n_tokens ?? 0) > 0);
}

/** A wire token `{id, text, logprob, special}` (plus `rank` from servers that take token_ranks) → canonical TokenInfo. */
export function tokenInfoOf(token: Record<string, unknown>, request: CanonicalRequest, topTokens?: unknown): TokenInfo {
  const ro = request.parameters?.return_options ?? {};
  const info: TokenInfo = { text: typeof token.text === 'string' ? token.text : '' };
  const logprob = numberField(token, 'logprob');
  if (ro.token_logprobs && logprob !== undefined) info.logprob = logprob;
  const rank = numberField(token, 'rank');
  if (ro.token_ranks && rank !== undefined) info.rank = rank;
  const n = ro.top_n_tokens ?? 0;
  if (n > 0 && Array.isArray(topTokens)) info.top_tokens = topTokens.filter(isRecord).slice(0, n).map(topTokenOf);
  return info;
}

function topTokenOf(token: Record<string, unknown>): TopToken {
  const top: TopToken = {};
  if (typeof token.text === 'string') top.text = token.text;
  const logprob = numberField(token, 'logprob');
  if (logprob !== undefined) top.logprob = logprob;
  return top;
}
