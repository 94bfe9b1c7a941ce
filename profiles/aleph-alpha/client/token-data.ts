/**
 * AA token data → canonical `generated_tokens`. `completion_tokens` holds the token texts; `log_probs` holds, per
 * token, a dictionary from token text to log probability: the sampled token plus the top alternatives asked for
 * with `log_probs: N`. With `echo` both lists start with the prompt's tokens (the first `log_probs` entry is `{}`),
 * which are skipped here by character count.
 */
import type { TokenInfo, TopToken } from '../../../src/contract/canonical.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function alternatives(entry: Record<string, unknown>): TopToken[] {
  return Object.entries(entry)
    .filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]))
    .sort((a, b) => b[1] - a[1])
    .map(([text, logprob]) => ({ text, logprob }));
}

/**
 * Token infos of one completion (or of one stream chunk). `skipChars` characters of echoed prompt come first and are
 * dropped; `topN` > 0 adds the best `topN` alternatives. Undefined when no token data came back.
 */
export function tokenInfos(
  completionTokens: unknown,
  logProbs: unknown,
  topN: number,
  skipChars = 0,
): TokenInfo[] | undefined {
  const texts = Array.isArray(completionTokens) ? completionTokens : undefined;
  const entries = Array.isArray(logProbs) ? logProbs : undefined;
  if (texts === undefined && entries === undefined) return undefined;
  const count = Math.max(texts?.length ?? 0, entries?.length ?? 0);
  const out: TokenInfo[] = [];
  let skip = skipChars;
  for (let i = 0; i < count; i++) {
    const entry = isRecord(entries?.[i]) ? (entries![i] as Record<string, unknown>) : undefined;
    const keys = entry ? Object.keys(entry) : [];
    // Without completion_tokens only a one-key dictionary says which token was sampled.
    const text = typeof texts?.[i] === 'string' ? (texts[i] as string) : keys.length === 1 ? keys[0] : undefined;
    if (skip > 0) {
      skip -= text?.length ?? skip;
      continue;
    }
    const info: TokenInfo = {};
    if (text !== undefined) info.text = text;
    const logprob = entry && text !== undefined ? entry[text] : undefined;
    if (typeof logprob === 'number' && Number.isFinite(logprob)) info.logprob = logprob;
    if (topN > 0 && entry) info.top_tokens = alternatives(entry).slice(0, topN);
    out.push(info);
  }
  return out;
}

/** How many characters at the start of an echoed completion are the prompt (AA may trim its trailing whitespace). */
export function echoLength(completion: string, prompt: string): number {
  if (completion.startsWith(prompt)) return prompt.length;
  const trimmed = prompt.trimEnd();
  return trimmed !== prompt && completion.startsWith(trimmed) ? trimmed.length : 0;
}
