import { paint, shade } from './paint.js';

/** Cosine similarity; 0 when either vector has no length (nothing to compare). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export function similarityMatrix(vectors: ReadonlyArray<readonly number[]>): number[][] {
  return vectors.map((a) => vectors.map((b) => cosineSimilarity(a, b)));
}

/** Light grey (unrelated) to strong blue (alike), for cosine 0..1; negatives share the lightest shade. */
const SHADES = [255, 254, 253, 189, 153, 117, 75, 69] as const;
const LABEL_WIDTH = 24;

function label(i: number, text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > LABEL_WIDTH ? `${flat.slice(0, LABEL_WIDTH - 1).trimEnd()}…` : flat;
  return `${String(i + 1).padStart(2)} ${cut.padEnd(LABEL_WIDTH)}`;
}

/**
 * The matrix as a table: one row per text (its number and the start of the text), one column per text number, each
 * cell the cosine to two decimals. With colour the cells are shaded by similarity.
 */
export function renderSimilarityMatrix(
  texts: readonly string[],
  matrix: ReadonlyArray<readonly number[]>,
  color: boolean,
): string {
  const header = `${' '.repeat(3 + LABEL_WIDTH)}${texts.map((_, j) => ` ${String(j + 1).padStart(5)}`).join('')}`;
  const rows = matrix.map((row, i) => {
    const cells = row.map((v) => {
      const cell = ` ${v.toFixed(2).padStart(5)}`;
      return color ? ` ${paint(color).background(v.toFixed(2).padStart(5), shade(SHADES, v))}` : cell;
    });
    return `${label(i, texts[i] ?? '')}${cells.join('')}`;
  });
  return [header.trimEnd(), ...rows].map((l) => `${l}\n`).join('');
}
