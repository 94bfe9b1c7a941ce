/**
 * What the local engine can read of a task's prompt or document: text items as they are, token ids decoded, images
 * counted (144 tokens each, as the service counts them) but not seen, Word files unpacked to their text.
 */
import type { Tokenizer } from '../../../src/emulator/engine/index.js';
import type { AlephAlphaPrompt, AlephAlphaPromptItem } from '../prompt-item-check.js';
import { docxText } from './docx.js';
import type { AlephAlphaDocument } from '../prompt-item-check.js';

/** Each image in a multimodal prompt counts as this many tokens. */
export const IMAGE_TOKENS = 144;

export type TextResult = { ok: true; text: string; imageTokens: number } | { ok: false; message: string };

export function promptItems(prompt: AlephAlphaPrompt): AlephAlphaPromptItem[] {
  return typeof prompt === 'string' ? [{ type: 'text', data: prompt }] : prompt;
}

/** The decoded token ids, or undefined when one is not in the vocabulary. */
export function decodeIds(tokenizer: Tokenizer, ids: readonly number[]): string | undefined {
  try {
    return tokenizer.decode(ids);
  } catch {
    return undefined;
  }
}

/** The prompt as one text; `name` is the field it came from, for messages. */
export function promptText(tokenizer: Tokenizer, prompt: AlephAlphaPrompt, name: string): TextResult {
  let text = '';
  let imageTokens = 0;
  for (const [i, item] of promptItems(prompt).entries()) {
    if (item.type === 'text') text += item.data;
    else if (item.type === 'image') imageTokens += IMAGE_TOKENS;
    else {
      const decoded = decodeIds(tokenizer, item.data);
      if (decoded === undefined)
        return { ok: false, message: `Invalid request: '${name}[${i}].data' holds a token id the model does not know` };
      text += decoded;
    }
  }
  return { ok: true, text, imageTokens };
}

/** A document's text; `name` is where it sits in the request (`documents[1]`). */
export function documentText(tokenizer: Tokenizer, document: AlephAlphaDocument, name: string): TextResult {
  if ('text' in document) return { ok: true, text: document.text, imageTokens: 0 };
  if ('prompt' in document) return promptText(tokenizer, document.prompt, `${name}.prompt`);
  const text = docxText(Buffer.from(document.docx, 'base64'));
  if (text === undefined)
    return { ok: false, message: `Invalid request: '${name}.docx' is not a Word document (.docx)` };
  return { ok: true, text, imageTokens: 0 };
}
