/** `summarize` on Aleph Alpha: `POST /summarize` (deprecated by the service, still served). */
import type { SummarizeRequest, SummarizeResult, TaskOperation } from '../../../src/contract/adapter.js';
import { isRecord } from './response.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import { hostingField, modelVersionOf, taskRequest } from './task-request.js';

export const alephAlphaSummarize: TaskOperation<SummarizeRequest, SummarizeResult> = {
  buildRequest(req, profile) {
    return taskRequest(profile, 'summarize', { ...hostingField(profile), document: req.document }, req.nice);
  },

  parseResponse(body) {
    if (!isRecord(body) || typeof body.summary !== 'string')
      throw new UnexpectedAnswer('the answer has no "summary" string');
    return { ...modelVersionOf(body), summary: body.summary };
  },

  renderText(result) {
    if (result.summary === '') return '';
    return result.summary.endsWith('\n') ? result.summary : `${result.summary}\n`;
  },
};
