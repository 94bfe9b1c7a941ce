import { UsageError } from '../contract/errors.js';

/**
 * `detokenize IDS...`: ids as separate words, comma-separated, or as a JSON list (`tokenize --ids -o json -j ids`
 * piped in), in any mix. Every item must be a whole number ≥ 0.
 */
export function parseTokenIds(words: readonly string[]): number[] {
  const ids: number[] = [];
  for (const item of words.join(' ').split(/[\s,[\]]+/)) {
    if (item === '') continue;
    if (!/^\d+$/.test(item) || !Number.isSafeInteger(Number(item))) {
      throw new UsageError(`detokenize: "${item}" is not a token id (a whole number from 0)`);
    }
    ids.push(Number(item));
  }
  return ids;
}
