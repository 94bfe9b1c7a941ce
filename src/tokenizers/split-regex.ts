/**
 * The Split pre-tokenizer of Hugging Face tokenizer files: a pattern (Oniguruma syntax) and what to do with the
 * matches. The patterns in common byte-level tokenizers (GPT-4's, Llama 3's) use two things JavaScript lacks —
 * `(?i:…)` groups and possessive quantifiers (`?+`) — which are rewritten here into what they mean for them.
 */
import { UsageError } from '../contract/errors.js';

export const SPLIT_BEHAVIORS = ['Isolated', 'Removed', 'MergedWithPrevious', 'MergedWithNext'] as const;
export type SplitBehavior = (typeof SPLIT_BEHAVIORS)[number];

function otherCase(c: string): string {
  const lower = c.toLowerCase();
  return lower === c ? c.toUpperCase() : lower;
}

/**
 * Oniguruma → JavaScript for the subset tokenizer files use. Letters inside `(?i:…)` become both cases (ASCII
 * letters are all these patterns put there); a `+` after a quantifier (possessive) is dropped — greedy matching
 * gives the same splits for these patterns, whose alternatives never need to backtrack into a possessive run.
 */
export function toJsPattern(pattern: string): string {
  let out = '';
  let inClass = false;
  /** Paren depth at which each open `(?i:` group started. */
  const caseless: number[] = [];
  let depth = 0;
  let afterQuantifier = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\') {
      let sequence = pattern.slice(i, i + 2);
      if (/[pP]/.test(pattern[i + 1] ?? '') && pattern[i + 2] === '{') {
        const close = pattern.indexOf('}', i);
        if (close > 0) sequence = pattern.slice(i, close + 1);
      }
      out += sequence;
      i += sequence.length - 1;
      afterQuantifier = false;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += caseless.length > 0 && /[A-Za-z]/.test(c) ? c + otherCase(c) : c;
      continue;
    }
    if (c === '+' && afterQuantifier) {
      afterQuantifier = false;
      continue;
    }
    afterQuantifier = c === '?' || c === '*' || c === '+' || c === '}';
    if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === '(' && pattern.startsWith('(?i:', i)) {
      depth++;
      caseless.push(depth);
      out += '(?:';
      i += 3;
      afterQuantifier = false;
    } else if (c === '(') {
      depth++;
      out += c;
      // `(?` opens a group; the `?` is no quantifier.
      if (pattern[i + 1] === '?') {
        out += '?';
        i++;
      }
      afterQuantifier = false;
    } else if (c === ')') {
      if (caseless[caseless.length - 1] === depth) caseless.pop();
      depth--;
      out += c;
    } else if (caseless.length > 0 && /[A-Za-z]/.test(c)) {
      out += `[${c}${otherCase(c)}]`;
    } else {
      out += c;
    }
  }
  return out;
}

/** A tokenizer file's pattern as a global Unicode RegExp; `where` names it in the error. */
export function compileSplitPattern(pattern: { Regex?: unknown; String?: unknown }, where: string): RegExp {
  if (typeof pattern.String === 'string')
    return new RegExp(pattern.String.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gu');
  if (typeof pattern.Regex !== 'string')
    throw new UsageError(`the tokenizer's ${where} has no Regex or String pattern`);
  try {
    return new RegExp(toJsPattern(pattern.Regex), 'gu');
  } catch (e) {
    throw new UsageError(`the tokenizer's ${where} pattern cannot run in JavaScript: ${(e as Error).message}`);
  }
}

interface Segment {
  text: string;
  match: boolean;
}

function segments(text: string, regex: RegExp, invert: boolean): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  for (const m of text.matchAll(regex)) {
    if (m[0] === '') continue;
    if (m.index > at) out.push({ text: text.slice(at, m.index), match: invert });
    out.push({ text: m[0], match: !invert });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ text: text.slice(at), match: invert });
  return out;
}

/** One piece → pieces, as Hugging Face's Split does it (`the-final--countdown` on "-": see the tests). */
export function splitPiece(text: string, regex: RegExp, behavior: SplitBehavior, invert = false): string[] {
  const parts = segments(text, regex, invert);
  switch (behavior) {
    case 'Isolated':
      return parts.map((p) => p.text);
    case 'Removed':
      return parts.filter((p) => !p.match).map((p) => p.text);
    case 'MergedWithPrevious': {
      const out: string[] = [];
      let open = false;
      for (const p of parts) {
        if (p.match && open) out[out.length - 1] += p.text;
        else out.push(p.text);
        open = !p.match;
      }
      return out;
    }
    case 'MergedWithNext': {
      const out: string[] = [];
      let open = false;
      for (const p of [...parts].reverse()) {
        if (p.match && open) out[out.length - 1] = p.text + (out[out.length - 1] as string);
        else out.push(p.text);
        open = !p.match;
      }
      return out.reverse();
    }
  }
}
