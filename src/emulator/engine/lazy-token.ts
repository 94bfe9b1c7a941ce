/**
 * Tokens whose alternatives are worked out only when read. Most answers show no logprobs, and the alternatives
 * (ranked, fillAlternatives in generator.ts, each drawing and tokenizing made-up words) were most of the
 * deterministic engine's time per token. The token is still a plain object with `topTokens` an own enumerable
 * property, so spreading, JSON.stringify and deep equality see the same token as before, computed on first read.
 */
import { withLazy } from '../../contract/lazy-property.js';
import type { EngineToken, TokenAlternative } from './types.js';

export function scoredToken(
  id: number,
  text: string,
  logprob: number,
  rank: number,
  alternatives: () => TokenAlternative[],
): EngineToken {
  // withLazy, not a literal's getter: see lazy-property.ts (a literal's accessor pins the token until a full GC).
  return withLazy({ id, text, logprob, rank }, 'topTokens', alternatives);
}
