/**
 * The public OpenAI encodings, offline, from gpt-tokenizer (≈150 ms to load, so only on first use).
 *
 * Encoding is gpt-tokenizer's. Decoding is done here from the encoding's own rank table: gpt-tokenizer's `decode`
 * shares one streaming TextDecoder between calls, so a token that ends inside a UTF-8 character leaves bytes
 * behind that the next, unrelated `decode` call emits. Bytes joined here and decoded once cannot leak.
 */
import { UsageError } from '../contract/errors.js';
import type { OpenAiEncoding } from './openai-encodings.js';
import type { OfflineTokenizer } from './types.js';
import { decodeJoined } from './utf8.js';

interface EncodingModule {
  encode(text: string, options?: { disallowedSpecial?: Set<string> }): number[];
  /** Used only for ids outside the rank table (special tokens), which gpt-tokenizer returns as whole strings. */
  decode(ids: Iterable<number>): string;
}

/** Index = token id; a string for tokens that are valid UTF-8, the raw bytes otherwise. */
type RankTable = readonly (string | readonly number[] | undefined)[];

async function importEncoding(name: OpenAiEncoding): Promise<[EncodingModule, RankTable]> {
  // Literal specifiers, so the type checker and any bundler see each module.
  switch (name) {
    case 'r50k_base':
      return Promise.all([
        import('gpt-tokenizer/encoding/r50k_base'),
        import('gpt-tokenizer/bpeRanks/r50k_base').then((m) => m.default),
      ]);
    case 'p50k_base':
      return Promise.all([
        import('gpt-tokenizer/encoding/p50k_base'),
        import('gpt-tokenizer/bpeRanks/p50k_base').then((m) => m.default),
      ]);
    case 'cl100k_base':
      return Promise.all([
        import('gpt-tokenizer/encoding/cl100k_base'),
        import('gpt-tokenizer/bpeRanks/cl100k_base').then((m) => m.default),
      ]);
    case 'o200k_base':
      return Promise.all([
        import('gpt-tokenizer/encoding/o200k_base'),
        import('gpt-tokenizer/bpeRanks/o200k_base').then((m) => m.default),
      ]);
  }
}

const loaded = new Map<OpenAiEncoding, Promise<OfflineTokenizer>>();

export function loadOpenAiTokenizer(name: OpenAiEncoding): Promise<OfflineTokenizer> {
  let tokenizer = loaded.get(name);
  if (!tokenizer) {
    tokenizer = importEncoding(name).then(([m, ranks]) => createOpenAiTokenizer(name, m, ranks));
    loaded.set(name, tokenizer);
  }
  return tokenizer;
}

function createOpenAiTokenizer(name: OpenAiEncoding, m: EncodingModule, ranks: RankTable): OfflineTokenizer {
  const utf8 = new TextEncoder();
  // Special-token text typed by a user is text, as in the engine: never rejected, never a control token.
  const plainText = { disallowedSpecial: new Set<string>() };

  function bytesOf(id: number): Uint8Array {
    const entry = Number.isInteger(id) && id >= 0 ? ranks[id] : undefined;
    if (typeof entry === 'string') return utf8.encode(entry);
    if (entry !== undefined) return Uint8Array.from(entry);
    let special: string;
    try {
      special = m.decode([id]);
    } catch {
      throw new UsageError(`token id ${id} is not in ${name}`);
    }
    return utf8.encode(special);
  }

  /**
   * Most tokens are whole UTF-8 text, stored as a string: those join as they are, without bytes or a decoder (the
   * decoder was most of a short answer's tokenizer time). Anything else goes through the bytes, as does a text
   * that starts with a byte-order mark, which TextDecoder drops.
   */
  function decode(ids: readonly number[]): string {
    let text = '';
    for (const id of ids) {
      const entry = Number.isInteger(id) && id >= 0 ? ranks[id] : undefined;
      if (typeof entry !== 'string') return decodeJoined(ids.map(bytesOf));
      text += entry;
    }
    return text.charCodeAt(0) === 0xfeff ? decodeJoined(ids.map(bytesOf)) : text;
  }

  return {
    encoding: name,
    encode: (text) => m.encode(text, plainText),
    tokenTexts: (ids) => ids.map((id) => decode([id])),
    decode,
  };
}
