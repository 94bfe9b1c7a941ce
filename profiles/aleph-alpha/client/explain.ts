/** `explain` on Aleph Alpha: `POST /explain` — how much each part of the prompt contributes to a target text. */
import type { ExplainRequest, ExplainResult, Explanation, TaskOperation } from '../../../src/contract/adapter.js';
import { renderExplanations } from './explain-lines.js';
import { isRecord } from './response.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import { hostingField, modelVersionOf, taskRequest } from './task-request.js';

export function explainBody(req: ExplainRequest, hosting: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { model: req.model, ...hosting, prompt: req.prompt, target: req.target };
  if (req.postprocessing !== undefined) body.postprocessing = req.postprocessing;
  if (req.normalize !== undefined) body.normalize = req.normalize;
  if (req.granularity !== undefined) {
    body.prompt_granularity = {
      type: req.granularity,
      ...(req.delimiter !== undefined ? { delimiter: req.delimiter } : {}),
    };
  }
  if (req.targetGranularity !== undefined) body.target_granularity = req.targetGranularity;
  return body;
}

export const alephAlphaExplain: TaskOperation<ExplainRequest, ExplainResult> = {
  buildRequest(req, profile) {
    return taskRequest(profile, 'explain', explainBody(req, hostingField(profile)), req.nice);
  },

  parseResponse(body, req) {
    if (!isRecord(body) || !Array.isArray(body.explanations))
      throw new UnexpectedAnswer('the answer has no "explanations" array');
    body.explanations.forEach((e: unknown, i: number) => {
      if (!isRecord(e) || !Array.isArray(e.items)) throw new UnexpectedAnswer(`explanation ${i} has no "items" array`);
      e.items.forEach((item: unknown, k: number) => {
        if (!isRecord(item) || typeof item.type !== 'string' || !Array.isArray(item.scores))
          throw new UnexpectedAnswer(`explanation ${i}, item ${k} has no "type" and "scores"`);
      });
    });
    return { model_id: req.model, ...modelVersionOf(body), explanations: body.explanations as Explanation[] };
  },

  renderText(result, req, view) {
    return renderExplanations(result.explanations, req.prompt, req.target, view?.heatMap);
  },
};
