/**
 * A byte-level BPE tokenizer built from a Hugging Face tokenizer.json (see hf-tokenizer-json.ts): added tokens
 * are cut out of the text first, the rest is normalized, pre-tokenized into byte-level pieces, and each piece is
 * merged pair by pair, lowest merge rank first. Decoding maps the byte-level alphabet back to bytes.
 */
import { UsageError } from '../contract/errors.js';
import { fromByteLevel } from './byte-level.js';
import { readTokenizerJson, type AddedToken } from './hf-tokenizer-json.js';
import type { OfflineTokenizer } from './types.js';
import { decodeJoined } from './utf8.js';

/** Pieces repeat a lot in real text; remembering the common ones makes long inputs cheap. */
const PIECE_CACHE_LIMIT = 20_000;

/** Byte-level symbols never contain NUL (byte 0 is spelled "Ā"), so it can join a pair into one key. */
const pairKey = (a: string, b: string) => `${a}\u0000${b}`;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Splits text around added tokens, longest first, as the library does before anything else. */
function addedTokenSplitter(added: AddedToken[]): (text: string) => Array<string | AddedToken> {
  if (added.length === 0) return (text) => [text];
  const byContent = new Map(added.map((t) => [t.content, t]));
  const regex = new RegExp(
    [...byContent.keys()]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegex)
      .join('|'),
    'gu',
  );
  return (text) => {
    const out: Array<string | AddedToken> = [];
    let at = 0;
    for (const m of text.matchAll(regex)) {
      if (m.index > at) out.push(text.slice(at, m.index));
      out.push(byContent.get(m[0]) as AddedToken);
      at = m.index + m[0].length;
    }
    if (at < text.length) out.push(text.slice(at));
    return out;
  };
}

/** A tokenizer.json document → an offline tokenizer. UsageError when the document is not a byte-level BPE one. */
export function createByteLevelBpe(document: unknown): OfflineTokenizer {
  const parts = readTokenizerJson(document);
  const { vocab } = parts;
  const ranks = new Map<string, number>(parts.merges.map(([a, b], rank) => [pairKey(a, b), rank]));
  const byId = new Map<number, { text: string; added: boolean }>();
  for (const [token, id] of vocab) byId.set(id, { text: token, added: false });
  for (const t of parts.addedTokens) byId.set(t.id, { text: t.content, added: true });
  const splitAdded = addedTokenSplitter(parts.addedTokens);
  const unkId = parts.unkToken !== undefined ? vocab.get(parts.unkToken) : undefined;
  const cache = new Map<string, number[]>();

  function idOf(symbol: string): number {
    const id = vocab.get(symbol);
    if (id !== undefined) return id;
    if (unkId !== undefined) return unkId;
    throw new UsageError(`the tokenizer has no token for ${JSON.stringify(symbol)} and no unknown token`);
  }

  function mergePiece(piece: string): number[] {
    if (parts.ignoreMerges && vocab.has(piece)) return [vocab.get(piece) as number];
    let symbols = Array.from(piece);
    while (symbols.length > 1) {
      let best = Infinity;
      let left = '';
      let right = '';
      for (let i = 0; i < symbols.length - 1; i++) {
        const rank = ranks.get(pairKey(symbols[i] as string, symbols[i + 1] as string));
        if (rank !== undefined && rank < best) {
          best = rank;
          left = symbols[i] as string;
          right = symbols[i + 1] as string;
        }
      }
      if (best === Infinity) break;
      const merged: string[] = [];
      for (let i = 0; i < symbols.length; i++) {
        if (i < symbols.length - 1 && symbols[i] === left && symbols[i + 1] === right) {
          merged.push(left + right);
          i++;
        } else {
          merged.push(symbols[i] as string);
        }
      }
      symbols = merged;
    }
    return symbols.map(idOf);
  }

  function encodePiece(piece: string): number[] {
    const hit = cache.get(piece);
    if (hit) return hit;
    const ids = mergePiece(piece);
    if (cache.size >= PIECE_CACHE_LIMIT) cache.clear();
    cache.set(piece, ids);
    return ids;
  }

  function entry(id: number): { text: string; added: boolean } {
    const e = byId.get(id);
    if (!e) throw new UsageError(`token id ${id} is not in the tokenizer's vocabulary`);
    return e;
  }

  return {
    encode(text) {
      const ids: number[] = [];
      for (const part of splitAdded(text)) {
        if (typeof part !== 'string') ids.push(part.id);
        else for (const piece of parts.preTokenize(parts.normalize(part))) ids.push(...encodePiece(piece));
      }
      return ids;
    },
    tokenTexts: (ids) => ids.map((id) => entry(id).text),
    decode(ids) {
      const utf8 = new TextEncoder();
      return decodeJoined(
        ids.map((id) => {
          const e = entry(id);
          return e.added ? utf8.encode(e.text) : fromByteLevel(e.text);
        }),
      );
    },
  };
}
