/**
 * The embedded server's stand-in for Azure's content filter, driven by fixed words so tests and users can trigger it:
 * - a prompt containing `forbidden-words` (any case) is refused: HTTP 400 `content_filter`, as Azure refuses a
 *   prompt that trips its policy;
 * - generated text is cut before the word `forbidden` (any case) and ends with `finish_reason: "content_filter"`
 *   on a 200. The local model only writes that word when the prompt uses it ("Tell me about forbidden fruit").
 */

export const PROMPT_TRIGGER = 'forbidden-words';
export const OUTPUT_TRIGGER = 'forbidden';

const OUTPUT_WORD = new RegExp(`\\b${OUTPUT_TRIGGER}\\b`, 'i');

export function promptIsFiltered(prompt: string): boolean {
  return prompt.toLowerCase().includes(PROMPT_TRIGGER);
}

/** Where generated text must end: before the first filtered word and the space leading to it, or undefined. */
export function outputCut(text: string): number | undefined {
  const match = OUTPUT_WORD.exec(text);
  return match ? text.slice(0, match.index).trimEnd().length : undefined;
}

/**
 * How much of streamed text may go out now: a trailing word that could still become the filtered one, and the
 * space before it, are held back until the next token shows they may go.
 */
export function releasable(text: string): number {
  const word = /[A-Za-z]*$/.exec(text)![0];
  const wordStart = text.length - word.length;
  // Letters glued to an earlier word (or digit) can never become the filtered word on its own.
  if (word !== '' && wordStart > 0 && /\w/.test(text[wordStart - 1]!)) return text.length;
  if (!OUTPUT_TRIGGER.startsWith(word.toLowerCase())) return text.length;
  return text.slice(0, wordStart).trimEnd().length;
}

const SAFE = { filtered: false, severity: 'safe' };

/** Azure's verdict for every category, one of them filtered when `filtered` says so. */
export function contentFilterResults(filtered: boolean): Record<string, { filtered: boolean; severity: string }> {
  return {
    hate: SAFE,
    self_harm: SAFE,
    sexual: SAFE,
    violence: filtered ? { filtered: true, severity: 'medium' } : SAFE,
  };
}

export const PROMPT_FILTERED_MESSAGE =
  "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766";
