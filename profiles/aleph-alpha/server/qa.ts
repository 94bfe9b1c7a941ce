/**
 * `POST /qa` of the local Aleph Alpha server: every sentence of the documents that shares a word with the query is
 * evidence; its score is the share of the query's words it holds, and its answer is the longest run of its own words
 * that the query does not already say ("Who likes pizza?" + "Andreas likes pizza." → "Andreas"). Best first,
 * document order among equals; at most `max_answers` (30 by default). Deterministic.
 */
import type { Engine } from '../../../src/emulator/engine/index.js';
import { badRequest, tooLarge, round, success, type TaskAnswer } from './task-answer.js';
import { documentText, unpackBudget } from './task-text.js';
import type { ValidQaRequest } from './task-validate.js';
import { MODEL_VERSION } from './models.js';
import { isFunctionWord, sentenceSpans, spanText, stem, termsOf } from './text-spans.js';

const DEFAULT_MAX_ANSWERS = 30;

/** The longest run of words the query does not contain, without function words at its ends; else the sentence. */
function answerOf(sentence: string, query: Set<string>): string {
  const words = [...sentence.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu)].map((m) => m[0]);
  let best: string[] = [];
  let run: string[] = [];
  const close = () => {
    while (run.length > 0 && isFunctionWord(run[0]!)) run.shift();
    while (run.length > 0 && isFunctionWord(run[run.length - 1]!)) run.pop();
    if (run.length > best.length) best = run;
    run = [];
  };
  for (const w of words) {
    if (query.has(stem(w))) close();
    else run.push(w);
  }
  close();
  return best.length > 0 ? best.join(' ') : sentence;
}

export async function qa(body: ValidQaRequest, _signal: AbortSignal, engine: Engine): Promise<TaskAnswer> {
  const tokenizer = await engine.tokenizer();
  const query = termsOf(body.query);
  const found: Array<{ answer: string; score: number; evidence: string }> = [];
  const budget = unpackBudget();
  for (const [i, document] of body.documents.entries()) {
    const text = await documentText(tokenizer, document, `documents[${i}]`, budget);
    if (!text.ok) return text.status === 413 ? tooLarge(text.message) : badRequest(text.message);
    for (const span of sentenceSpans(text.text)) {
      const evidence = spanText(text.text, span);
      const terms = termsOf(evidence);
      let shared = 0;
      for (const t of query) if (terms.has(t)) shared++;
      if (shared === 0) continue;
      found.push({ answer: answerOf(evidence, query), score: round(shared / query.size), evidence });
    }
  }
  // A stable sort keeps document order among equal scores.
  found.sort((a, b) => b.score - a.score);
  return success({ model_version: MODEL_VERSION, answers: found.slice(0, body.max_answers ?? DEFAULT_MAX_ANSWERS) });
}
