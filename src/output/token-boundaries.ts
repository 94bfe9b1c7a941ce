import { onBackground, perLine } from './sgr.js';

/** Two light backgrounds that tell neighbouring tokens apart on dark and light terminals alike. */
const ALTERNATE = [153, 223] as const;

/**
 * `tokenize` for a person at a colour terminal: the text with each token on alternating backgrounds (spaces inside a
 * token show as coloured cells), then the count. Without colour it is what a pipe gets: just the count.
 */
export function renderTokenBoundaries(tokens: readonly string[], count: number, color: boolean): string {
  if (!color) return `${count}\n`;
  const text = tokens.map((t, i) => perLine(t, (piece) => onBackground(piece, ALTERNATE[i % 2]!))).join('');
  return `${text}\n${count} ${count === 1 ? 'token' : 'tokens'}\n`;
}
