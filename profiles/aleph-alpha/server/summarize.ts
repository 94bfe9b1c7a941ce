/**
 * `POST /summarize` of the local Aleph Alpha server: the lead of the document. One paragraph → its first two
 * sentences; several → a bulleted list with the first sentence of each (the service, too, answers long documents
 * with "a bulleted list of summaries for sections"). Deterministic.
 */
import type { Engine } from '../../../src/emulator/engine/index.js';
import { badRequest, tooLarge, success, type TaskAnswer } from './task-answer.js';
import { documentText, unpackBudget } from './task-text.js';
import type { ValidSummarizationRequest } from './task-validate.js';
import { MODEL_VERSION } from './models.js';
import { paragraphSpans, sentenceSpans, spanText } from './text-spans.js';

const LEAD_SENTENCES = 2;

function sentences(text: string): string[] {
  return sentenceSpans(text).map((s) => spanText(text, s));
}

export async function summarize(
  body: ValidSummarizationRequest,
  _signal: AbortSignal,
  engine: Engine,
): Promise<TaskAnswer> {
  const document = await documentText(await engine.tokenizer(), body.document, 'document', unpackBudget());
  if (!document.ok) return document.status === 413 ? tooLarge(document.message) : badRequest(document.message);
  const paragraphs = paragraphSpans(document.text).map((p) => spanText(document.text, p));
  if (paragraphs.length === 0) return badRequest('Invalid request: the document holds no text to summarize');
  const summary =
    paragraphs.length === 1
      ? sentences(paragraphs[0]!).slice(0, LEAD_SENTENCES).join(' ')
      : paragraphs.map((p) => `- ${sentences(p)[0] ?? p}`).join('\n');
  return success({ model_version: MODEL_VERSION, summary });
}
