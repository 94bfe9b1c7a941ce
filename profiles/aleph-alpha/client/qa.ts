/** `qa` on Aleph Alpha: `POST /qa` (deprecated by the service, still served) — answers to a query from documents. */
import type { QaAnswer, QaRequest, QaResult, TaskOperation } from '../../../src/contract/adapter.js';
import { isRecord } from './response.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import { hostingField, modelVersionOf, taskRequest } from './task-request.js';

/** One answer per block: the answer and its score, then the evidence on one indented line. */
export function renderAnswers(answers: QaAnswer[]): string {
  return answers
    .map((a) => {
      const score = typeof a.score === 'number' ? a.score.toFixed(4) : 'n/a';
      const evidence = typeof a.evidence === 'string' ? a.evidence.trim().replace(/\s*\n\s*/g, ' ') : '';
      return `${a.answer}  (score ${score})\n${evidence !== '' ? `  evidence: ${evidence}\n` : ''}`;
    })
    .join('\n');
}

export const alephAlphaQa: TaskOperation<QaRequest, QaResult> = {
  buildRequest(req, profile) {
    const body: Record<string, unknown> = { ...hostingField(profile), query: req.query, documents: req.documents };
    if (req.maxAnswers !== undefined) body.max_answers = req.maxAnswers;
    return taskRequest(profile, 'qa', body, req.nice);
  },

  parseResponse(body) {
    if (!isRecord(body) || !Array.isArray(body.answers))
      throw new UnexpectedAnswer('the answer has no "answers" array');
    body.answers.forEach((a: unknown, i: number) => {
      if (!isRecord(a) || typeof a.answer !== 'string')
        throw new UnexpectedAnswer(`answer ${i} has no "answer" string`);
    });
    return { ...modelVersionOf(body), answers: body.answers as QaAnswer[] };
  },

  renderText(result) {
    return renderAnswers(result.answers);
  },
};
