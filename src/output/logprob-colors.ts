import { paint } from './paint.js';

export interface ScoredToken {
  text?: string | undefined;
  logprob?: number | undefined;
}

/** Probability bands, most likely first: green through red. */
const BANDS: ReadonlyArray<{ min: number; fg: number; label: string }> = [
  { min: 0.9, fg: 34, label: '≥90%' },
  { min: 0.5, fg: 142, label: '≥50%' },
  { min: 0.2, fg: 178, label: '≥20%' },
  { min: 0.05, fg: 208, label: '≥5%' },
  { min: 0, fg: 196, label: '<5%' },
];

function colourOf(logprob: number): number {
  const p = Math.exp(logprob);
  return (BANDS.find((b) => p >= b.min) ?? BANDS[BANDS.length - 1]!).fg;
}

/** Providers spell a leading space or a newline inside a token their own way (SentencePiece ▁, byte-level BPE Ġ/Ċ). */
function spellings(token: string): string[] {
  const plain = token.replace(/▁/g, ' ').replace(/Ġ/g, ' ').replace(/Ċ/g, '\n');
  return plain === token ? [token] : [token, plain];
}

/**
 * `text` with each generated token coloured by its probability. The tokens are matched against the text, so what is
 * printed is always exactly `text`: a token without a log-probability prints plain, and from the first token that
 * does not match the text (a provider that reports tokens differently) the rest prints plain.
 */
export function colourByLogprob(text: string, tokens: readonly ScoredToken[], color: boolean): string {
  if (!color) return text;
  let out = '';
  let pos = 0;
  for (const token of tokens) {
    if (!token.text) continue;
    const piece = spellings(token.text).find((s) => text.startsWith(s, pos));
    if (piece === undefined) break;
    pos += piece.length;
    out +=
      token.logprob === undefined || !Number.isFinite(token.logprob)
        ? piece
        : piece
            .split('\n')
            .map((l) => paint(color).foreground(l, colourOf(token.logprob!)))
            .join('\n');
  }
  return out + text.slice(pos);
}

/** The key to the colours, for stderr. */
export function logprobLegend(color: boolean): string {
  if (!color) return `token probability: ${BANDS.map((b) => b.label).join(' ')}\n`;
  return `token probability: ${BANDS.map((b) => paint(color).foreground(`■ ${b.label}`, b.fg)).join(' ')}\n`;
}
