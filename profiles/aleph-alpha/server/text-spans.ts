/**
 * Where the local Aleph Alpha tasks cut text: tokens (the engine's real tokenizer), words, sentences, paragraphs, or
 * a custom delimiter, as `{start, length}` spans in UTF-16 units (what the service's scores use); and the words a
 * text is about, for matching a query or a target.
 */
import type { Tokenizer } from '../../../src/emulator/engine/index.js';
import { FUNCTION_WORDS } from '../../../src/emulator/engine/word-list.js';

export interface Span {
  start: number;
  length: number;
}

/** A span of tokens: usually one, several when a character is split across tokens. */
export interface TokenPiece extends Span {
  ids: number[];
}

/** Spans of the given pieces of `text` (found in order), leading and trailing whitespace left out, empty ones dropped. */
function trimmedSpans(text: string, bounds: Array<[number, number]>): Span[] {
  const spans: Span[] = [];
  for (let [start, end] of bounds) {
    while (start < end && /\s/.test(text[start]!)) start++;
    while (end > start && /\s/.test(text[end - 1]!)) end--;
    if (end > start) spans.push({ start, length: end - start });
  }
  return spans;
}

/**
 * The text's tokens with their character spans. Decoding token by token keeps this linear; a token that ends inside a
 * character (its decoding is not a prefix of the rest) is joined with the next ones until it is.
 */
export function tokenPieces(tokenizer: Tokenizer, text: string): TokenPiece[] {
  const pieces: TokenPiece[] = [];
  let position = 0;
  let group: number[] = [];
  for (const id of tokenizer.encode(text)) {
    group.push(id);
    const piece = tokenizer.decode(group);
    if (piece.length > 0 && text.startsWith(piece, position)) {
      pieces.push({ ids: group, start: position, length: piece.length });
      position += piece.length;
      group = [];
    }
  }
  if (group.length > 0 || position < text.length)
    pieces.push({ ids: group, start: position, length: text.length - position });
  return pieces;
}

export function wordSpans(text: string): Span[] {
  return [...text.matchAll(/\S+/g)].map((m) => ({ start: m.index, length: m[0].length }));
}

/**
 * Sentences end at `.`, `!` or `?` (closing quotes and brackets included) before whitespace, and at blank lines. A
 * single line break does not end one: hard-wrapped text keeps its sentences whole.
 */
export function sentenceSpans(text: string): Span[] {
  const bounds: Array<[number, number]> = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const blank = c === '\n' ? /^\n[ \t]*\n/.exec(text.slice(i, i + 256)) : null;
    if (blank) {
      bounds.push([start, i]);
      start = i + blank[0].length;
      i = start - 1;
    } else if (c === '.' || c === '!' || c === '?') {
      let end = i + 1;
      while (end < text.length && /[.!?"')\]]/.test(text[end]!)) end++;
      if (end === text.length || /\s/.test(text[end]!)) {
        bounds.push([start, end]);
        start = end;
        i = end - 1;
      }
    }
  }
  bounds.push([start, text.length]);
  return trimmedSpans(text, bounds);
}

/** Paragraphs are separated by blank lines. */
export function paragraphSpans(text: string): Span[] {
  const bounds: Array<[number, number]> = [];
  let start = 0;
  for (const m of text.matchAll(/\n[ \t]*\n/g)) {
    bounds.push([start, m.index]);
    start = m.index + m[0].length;
  }
  bounds.push([start, text.length]);
  return trimmedSpans(text, bounds);
}

export function delimitedSpans(text: string, delimiter: string): Span[] {
  const bounds: Array<[number, number]> = [];
  let start = 0;
  for (let at = text.indexOf(delimiter); at >= 0 && delimiter !== ''; at = text.indexOf(delimiter, start)) {
    bounds.push([start, at]);
    start = at + delimiter.length;
  }
  bounds.push([start, text.length]);
  return trimmedSpans(text, bounds);
}

export function spanText(text: string, span: Span): string {
  return text.slice(span.start, span.start + span.length);
}

/** A word as it is compared: lower case, a plural or third-person "s" dropped ("likes" meets "like"). */
export function stem(word: string): string {
  const lower = word.toLowerCase();
  return lower.length > 3 && lower.endsWith('s') && !lower.endsWith('ss') ? lower.slice(0, -1) : lower;
}

export function wordsOf(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Question words and the like: they say what is asked, not what it is about. */
const QUESTION_WORDS = new Set([
  'who',
  'whom',
  'whose',
  'why',
  'how',
  'is',
  'are',
  'was',
  'do',
  'did',
  'the',
  'of',
  'to',
  'in',
  'on',
  'for',
  'an',
  'or',
  'it',
  'its',
]);

export function isFunctionWord(word: string): boolean {
  const lower = word.toLowerCase();
  return FUNCTION_WORDS.has(lower) || QUESTION_WORDS.has(lower);
}

/** The stems of the words a text is about; all of its words when it has nothing but function words. */
export function termsOf(text: string): Set<string> {
  const words = wordsOf(text);
  const content = words.filter((w) => !isFunctionWord(w));
  return new Set((content.length > 0 ? content : words).map(stem));
}
