/**
 * What the local engine can read of a task's prompt or document: text items as they are, token ids decoded, images
 * counted (144 tokens each, as the service counts them) but not seen, Word files unpacked to their text.
 */
import type { Tokenizer } from '../../../src/emulator/engine/index.js';
import type { AlephAlphaPrompt, AlephAlphaPromptItem } from '../prompt-item-check.js';
import { docxText, MAX_RATIO, MAX_UNPACKED_BYTES, type UnpackBudget } from './docx.js';
import type { AlephAlphaDocument } from '../prompt-item-check.js';

/** Each image in a multimodal prompt counts as this many tokens. */
export const IMAGE_TOKENS = 144;

export type TextResult = { ok: true; text: string; imageTokens: number } | { ok: false; message: string; status?: 413 };

/** What one request may unpack of its Word documents, together (docx.ts). */
export function unpackBudget(): UnpackBudget {
  return { remaining: MAX_UNPACKED_BYTES };
}

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

/** A document's text; `name` is where it sits in the request (`documents[1]`); Word files draw on `budget`. */
export async function documentText(
  tokenizer: Tokenizer,
  document: AlephAlphaDocument,
  name: string,
  budget: UnpackBudget,
): Promise<TextResult> {
  if ('text' in document) return { ok: true, text: document.text, imageTokens: 0 };
  if ('prompt' in document) return promptText(tokenizer, document.prompt, `${name}.prompt`);
  const docx = await docxText(Buffer.from(document.docx, 'base64'), budget);
  if (docx.ok) return { ok: true, text: docx.text, imageTokens: 0 };
  if (docx.reason === 'not-a-document')
    return { ok: false, message: `Invalid request: '${name}.docx' is not a Word document (.docx)` };
  const why =
    docx.bound === 'ratio'
      ? `unpacks to more than ${MAX_RATIO} times its compressed size`
      : `would take the request's Word text past ${MAX_UNPACKED_BYTES} bytes`;
  return { ok: false, status: 413, message: `Invalid request: '${name}.docx' ${why}` };
}
