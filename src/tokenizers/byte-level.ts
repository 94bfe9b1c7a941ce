/**
 * GPT-2's byte-level alphabet, which Hugging Face's ByteLevel pre-tokenizer and decoder use: every byte is shown
 * as one printable character (space → "Ġ", newline → "Ċ"), so a vocabulary of strings covers all bytes.
 */

function buildAlphabet(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const chars: string[] = new Array<string>(256);
  for (const b of printable) chars[b] = String.fromCodePoint(b);
  let next = 0;
  for (let b = 0; b < 256; b++) {
    if (chars[b] === undefined) chars[b] = String.fromCodePoint(256 + next++);
  }
  return chars;
}

/** Index = byte value. */
export const BYTE_TO_CHAR: readonly string[] = buildAlphabet();
export const CHAR_TO_BYTE: ReadonlyMap<string, number> = new Map(BYTE_TO_CHAR.map((c, b) => [c, b]));

/** GPT-2's split (the ByteLevel pre-tokenizer's default `use_regex: true`). */
export const GPT2_SPLIT_PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

const utf8 = new TextEncoder();

/** Text → its UTF-8 bytes, each spelled as one alphabet character. */
export function toByteLevel(text: string): string {
  let out = '';
  for (const b of utf8.encode(text)) out += BYTE_TO_CHAR[b];
  return out;
}

/** Alphabet characters → bytes. A character outside the alphabet stands for itself (its UTF-8 bytes). */
export function fromByteLevel(chars: string): Uint8Array {
  const bytes: number[] = [];
  for (const c of chars) {
    const b = CHAR_TO_BYTE.get(c);
    if (b !== undefined) bytes.push(b);
    else bytes.push(...utf8.encode(c));
  }
  return Uint8Array.from(bytes);
}
