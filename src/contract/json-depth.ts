/**
 * How deep JSON text nests, found without parsing it: JSON.parse copes with far deeper text than what comes after
 * it (zod, merging, JSON.stringify, the YAML writer, JMESPath) can walk, so depth is checked on the text first.
 */

/** Offset of the bracket that opens level `max + 1`, in text that is valid JSON; undefined if none does. */
export function jsonDepthExceededAt(text: string, max: number): number | undefined {
  // Fewer characters than levels cannot nest that deep.
  if (text.length <= max) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

/**
 * The most a service's answer may nest, and the most of it that is read: a hostile or broken service must not
 * crash the CLI (a stack overflow deep inside the output writers) or exhaust its memory (a 600 MB answer).
 * Both are far beyond any real answer: services nest a handful of levels, and 128 MiB is more than a batch of
 * 2048 embeddings of 3072 dimensions.
 */
export const MAX_ANSWER_DEPTH = 256;
export const MAX_ANSWER_BYTES = 128 * 1024 * 1024;
