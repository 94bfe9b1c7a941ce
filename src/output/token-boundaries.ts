import { paint, perLine } from './paint.js';

/** Two light backgrounds that tell neighbouring tokens apart on dark and light terminals alike. */
const ALTERNATE = [153, 223] as const;

/**
 * `tokenize` for a person at a colour terminal: the text with each token on alternating backgrounds (spaces inside a
 * token show as coloured cells), then the count. Without colour it is what a pipe gets: just the count.
 */
export function renderTokenBoundaries(tokens: readonly string[], count: number, color: boolean): string {
  if (!color) return `${count}\n`;
  const { background } = paint(color);
  const text = tokens.map((t, i) => perLine(t, (piece) => background(piece, ALTERNATE[i % 2]!))).join('');
  return `${text}\n${count} ${count === 1 ? 'token' : 'tokens'}\n`;
}

/** Providers spell a leading space or a line break inside a token their own way: SentencePiece ▁, byte-level BPE Ġ/Ċ. */
function spelled(token: string): string {
  return token.replace(/[▁Ġ]/g, ' ').replace(/Ċ/g, '\n');
}

/**
 * The tokens as pieces of `text`, for the picture: as given when they spell it already; else with the providers'
 * space and line-break marks read (and SentencePiece's added leading space dropped) when that spells it exactly;
 * else as given, so the picture never shows a text the service did not see.
 */
export function tokensAsText(tokens: readonly string[], text: string): string[] {
  if (tokens.join('') === text) return [...tokens];
  const pieces = tokens.map(spelled);
  const joined = pieces.join('');
  if (joined === text) return pieces;
  if (joined === ` ${text}` && pieces[0]?.startsWith(' ')) return [pieces[0].slice(1), ...pieces.slice(1)];
  return [...tokens];
}
