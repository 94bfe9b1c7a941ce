/**
 * The Split patterns `tokenize --local` runs: the public pre-tokenizer regexes of the byte-level BPE tokenizers
 * textgen supports, exactly as their tokenizer files carry them. A file with any other pattern is refused.
 *
 * Why a list and not a time budget: the pattern comes from the service, and a JavaScript regex cannot be stopped
 * once it runs — `(\w+\s?)*$` on a nine-word prompt held the CPU for 25 s with Ctrl-C and SIGTERM unheard, since
 * signals wait for the event loop. A worker thread with a deadline could be terminated, but it would start a thread
 * and load the whole vocabulary again on every run, and it would still give wrong answers: toJsPattern's rewrite of
 * Oniguruma's possessive quantifiers keeps the service's splits only for patterns whose alternatives never need to
 * backtrack, which is known of these and of no pattern in general. So an unknown pattern is an answer textgen cannot
 * use (exit 4), and nothing of it runs. Each of these runs in time linear in the text (no quantified group holds a
 * quantifier).
 */
import { GPT2_SPLIT_PATTERN } from './byte-level.js';

/** tiktoken's cl100k_base as published, with Oniguruma's `(?i:…)` and possessive quantifiers. */
const CL100K_TIKTOKEN =
  "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+";
/** cl100k_base as Hugging Face files write it: Llama 3, Pharia and other models trained on it. */
const CL100K_HF =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
/** Qwen2's: cl100k's with one digit per piece. */
const QWEN2 =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
/** o200k_base (GPT-4o). */
const O200K =
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
/** Digit splitting, the first step of several Sequence pre-tokenizers. */
const DIGITS = ['\\p{N}{1,3}', '\\p{N}'];

/** GPT2_SPLIT_PATTERN: GPT-2's (r50k_base, p50k_base), also the ByteLevel pre-tokenizer's own. */
const KNOWN = new Set([GPT2_SPLIT_PATTERN, CL100K_TIKTOKEN, CL100K_HF, QWEN2, O200K, ...DIGITS]);

/** Whether a Split pattern may run: a known Regex, or a String (matched literally, so it cannot backtrack). */
export function isKnownSplitPattern(pattern: { Regex?: unknown; String?: unknown }): boolean {
  if (typeof pattern.String === 'string') return true;
  return typeof pattern.Regex === 'string' && KNOWN.has(pattern.Regex);
}
