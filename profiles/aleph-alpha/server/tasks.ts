/**
 * The Aleph Alpha task endpoints of `textgen serve`: `POST /evaluate`, `/explain`, `/qa`, `/summarize`, at the root
 * as on api.aleph-alpha.com. Each request goes through the checks the service makes (token, `nice`, body, model),
 * then its handler; a fault switch of the test server applies only to a request that would have been served, so a
 * test's 503 never hides a 400. Errors are the service's `{"error","code"}`.
 */
import { answerUnlessFault } from './answer.js';
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { sendAlephAlphaError, upperSnake } from './errors.js';
import { evaluate } from './evaluate.js';
import { explain } from './explain.js';
import type { Engine } from '../../../src/emulator/engine/index.js';
import { isKnownModel, LUMINOUS_MODELS } from './models.js';
import { qa } from './qa.js';
import { summarize } from './summarize.js';
import type { TaskAnswer } from './task-answer.js';
import {
  EVALUATION_RULES,
  EXPLANATION_RULES,
  QA_RULES,
  SUMMARIZATION_RULES,
  validateTaskRequest,
  type TaskRules,
  type ValidEvaluationRequest,
  type ValidExplanationRequest,
  type ValidQaRequest,
  type ValidSummarizationRequest,
} from './task-validate.js';
import { alephAlphaPrelude } from './prelude.js';

function taskRoute<T>(
  rules: TaskRules,
  handle: (body: T, signal: AbortSignal, engine: Engine) => Promise<TaskAnswer>,
): RouteHandler {
  return async (ctx: RouteContext) => {
    const fail = (status: number, code: string, message: string) => sendAlephAlphaError(ctx.res, status, code, message);
    const prelude = alephAlphaPrelude(ctx, { nice: true });
    if (!prelude) return;
    const validation = validateTaskRequest<T & { model?: string }>(prelude.json, rules);
    if (!validation.ok) return fail(400, 'BAD_REQUEST', validation.message);
    const model = validation.body.model;
    if (model !== undefined && !isKnownModel(ctx.server.engine, model)) {
      return fail(
        404,
        'UNKNOWN_MODEL',
        `Unknown model '${model}': this server has ${LUMINOUS_MODELS.join(', ')} and any name ending in -local`,
      );
    }
    const answer = await handle(validation.body, ctx.signal, ctx.server.engine);
    if (ctx.signal.aborted) return;
    if (!answer.ok) return fail(answer.status, answer.code, answer.message);

    await answerUnlessFault(ctx, answer.body);
  };
}

export const alephAlphaTasksProtocol: ProtocolModule = {
  name: 'aleph-alpha-tasks',
  prefixes: ['/evaluate', '/explain', '/qa', '/summarize'],
  routes: [
    { method: 'POST', pattern: '/evaluate', handler: taskRoute<ValidEvaluationRequest>(EVALUATION_RULES, evaluate) },
    { method: 'POST', pattern: '/explain', handler: taskRoute<ValidExplanationRequest>(EXPLANATION_RULES, explain) },
    { method: 'POST', pattern: '/qa', handler: taskRoute<ValidQaRequest>(QA_RULES, qa) },
    {
      method: 'POST',
      pattern: '/summarize',
      handler: taskRoute<ValidSummarizationRequest>(SUMMARIZATION_RULES, summarize),
    },
  ],
  sendError(ctx, status, code, message, headers) {
    sendAlephAlphaError(ctx.res, status, upperSnake(code), message, headers);
  },
};
