/**
 * Tokens whose alternatives are worked out only when read. Most answers show no logprobs, and the alternatives
 * (ranked, fillAlternatives in generator.ts, each drawing and tokenizing made-up words) were most of the
 * deterministic engine's time per token. The token is still a plain object with `topTokens` an own enumerable
 * property, so spreading, JSON.stringify and deep equality see the same token as before, computed on first read.
 */
import type { EngineToken, TokenAlternative } from './types.js';

export function scoredToken(
  id: number,
  text: string,
  logprob: number,
  rank: number,
  alternatives: () => TokenAlternative[],
): EngineToken {
  let top: TokenAlternative[] | undefined;
  return {
    id,
    text,
    logprob,
    rank,
    get topTokens(): TokenAlternative[] | undefined {
      top ??= alternatives();
      return top;
    },
    set topTokens(value: TokenAlternative[] | undefined) {
      // Whoever assigns gets a plain property back (the interface's field is writable).
      Object.defineProperty(this, 'topTokens', { value, writable: true, enumerable: true, configurable: true });
    },
  };
}
