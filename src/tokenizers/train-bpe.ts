/**
 * Trains a small byte-level BPE vocabulary, deterministically: the same corpus and merge count always give the same
 * tokenizer.json. The local Aleph Alpha server uses it to serve a real tokenizer file without shipping one.
 */
import { BYTE_TO_CHAR, GPT2_SPLIT_PATTERN, toByteLevel } from './byte-level.js';

export interface TrainedBpe {
  /** The 256 byte symbols (id = byte value), then one token per merge, in merge order. */
  vocab: Map<string, number>;
  merges: Array<[string, string]>;
}

interface Word {
  symbols: string[];
  count: number;
}

interface Pair {
  a: string;
  b: string;
  count: number;
}

/** Adds (sign 1) or removes (sign -1) a word's adjacent pairs from the running counts. */
function tally(pairs: Map<string, Pair>, w: Word, sign: 1 | -1): void {
  for (let i = 0; i < w.symbols.length - 1; i++) {
    const a = w.symbols[i] as string;
    const b = w.symbols[i + 1] as string;
    const key = `${a}\u0000${b}`;
    const p = pairs.get(key);
    if (p) {
      p.count += sign * w.count;
      if (p.count === 0) pairs.delete(key);
    } else {
      pairs.set(key, { a, b, count: w.count });
    }
  }
}

function hasPair(symbols: readonly string[], a: string, b: string): boolean {
  for (let i = 0; i < symbols.length - 1; i++) if (symbols[i] === a && symbols[i + 1] === b) return true;
  return false;
}

/** Up to `merges` merges, each of the most frequent pair (ties: the smaller pair by code units); stops at pairs seen once. */
export function trainByteLevelBpe(corpus: string, merges: number): TrainedBpe {
  const words = new Map<string, Word>();
  for (const m of corpus.matchAll(new RegExp(GPT2_SPLIT_PATTERN, 'gu'))) {
    const piece = toByteLevel(m[0]);
    const w = words.get(piece);
    if (w) w.count++;
    else words.set(piece, { symbols: Array.from(piece), count: 1 });
  }
  const pairs = new Map<string, Pair>();
  for (const w of words.values()) tally(pairs, w, 1);
  const vocab = new Map<string, number>(BYTE_TO_CHAR.map((c, b) => [c, b]));
  const learned: Array<[string, string]> = [];
  while (learned.length < merges) {
    let best: Pair | undefined;
    for (const p of pairs.values()) {
      if (
        !best ||
        p.count > best.count ||
        (p.count === best.count && (p.a < best.a || (p.a === best.a && p.b < best.b)))
      )
        best = p;
    }
    if (!best || best.count < 2) break;
    const { a, b } = best;
    learned.push([a, b]);
    if (!vocab.has(a + b)) vocab.set(a + b, vocab.size);
    for (const w of words.values()) {
      if (!hasPair(w.symbols, a, b)) continue;
      tally(pairs, w, -1);
      const next: string[] = [];
      for (let i = 0; i < w.symbols.length; i++) {
        if (i < w.symbols.length - 1 && w.symbols[i] === a && w.symbols[i + 1] === b) {
          next.push(a + b);
          i++;
        } else {
          next.push(w.symbols[i] as string);
        }
      }
      w.symbols = next;
      tally(pairs, w, 1);
    }
  }
  return { vocab, merges: learned };
}

/** A trained vocabulary as a Hugging Face tokenizer.json with a ByteLevel pre-tokenizer and decoder (GPT-2's layout). */
export function byteLevelTokenizerJson(
  trained: TrainedBpe,
  specialTokens: readonly string[] = [],
): Record<string, unknown> {
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specialTokens.map((content, i) => ({
      id: trained.vocab.size + i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(trained.vocab),
      merges: trained.merges.map(([a, b]) => `${a} ${b}`),
    },
  };
}
