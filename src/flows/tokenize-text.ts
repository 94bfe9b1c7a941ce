/**
 * The text output of `tokenize` and `detokenize`, for people (scripts use -o json). Kept apart from the command flow
 * so that a richer terminal rendering (coloured token boundaries) can replace it alone.
 */
import type { DetokenizeResult, TokenizeResult } from '../contract/adapter.js';

export interface TokenizeShow {
  tokens: boolean;
  ids: boolean;
}

/**
 * Neither list asked for: the count. `--tokens`: one token per line, quoted so that spaces and line breaks inside a
 * token show. `--ids`: the ids on one line, space-separated (what `detokenize` reads back). Both: `ID<tab>"TOKEN"`.
 */
export function renderTokenizeText(result: TokenizeResult, show: TokenizeShow): string {
  const tokens = show.tokens ? (result.tokens ?? []) : undefined;
  const ids = show.ids ? (result.ids ?? []) : undefined;
  if (tokens && ids) return tokens.map((t, i) => `${ids[i] ?? ''}\t${JSON.stringify(t)}\n`).join('');
  if (tokens) return tokens.map((t) => `${JSON.stringify(t)}\n`).join('');
  if (ids) return `${ids.join(' ')}\n`;
  return `${result.token_count}\n`;
}

/** The text as it is, ending in a newline so the shell prompt starts on a line of its own. */
export function renderDetokenizeText(result: DetokenizeResult): string {
  return result.text.endsWith('\n') ? result.text : `${result.text}\n`;
}
