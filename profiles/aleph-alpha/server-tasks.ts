/**
 * The Aleph Alpha task endpoints of `textgen serve`: `POST /evaluate`, `/explain`, `/qa`, `/summarize`, at the root
 * as on api.aleph-alpha.com. Each request goes through the checks the service makes (token, `nice`, body, model),
 * then its handler; a fault switch of the test server applies only to a request that would have been served, so a
 * test's 503 never hides a 400. Errors are the service's `{"error","code"}`.
 */
import { answerUnlessFault } from './server-answer.js';
import { randomUUID } from 'node:crypto';
import type { ProtocolModule, RouteContext, RouteHandler } from '../../src/server/router.js';
import { isAuthorized, UNAUTHENTICATED_MESSAGE } from './server-auth.js';
import { sendAlephAlphaError, upperSnake } from './server-errors.js';
import { evaluate } from './server-evaluate.js';
import { explain } from './server-explain.js';
import { isKnownModel, LUMINOUS_MODELS } from './server-models.js';
import { qa } from './server-qa.js';
import { summarize } from './server-summarize.js';
import type { TaskAnswer } from './server-task-answer.js';
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
} from './server-task-validate.js';

function taskRoute<T>(rules: TaskRules, handle: (body: T, signal: AbortSignal) => Promise<TaskAnswer>): RouteHandler {
  return async (ctx: RouteContext) => {
    ctx.res.setHeader('x-request-id', randomUUID());
    const fail = (status: number, code: string, message: string) => sendAlephAlphaError(ctx.res, status, code, message);
    if (!isAuthorized(ctx)) return fail(401, 'UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
    const nice = ctx.request.query.nice;
    if (nice !== undefined && nice !== 'true' && nice !== 'false') return fail(400, 'BAD_REQUEST', `Invalid query parameter 'nice': expected true or false, got '${nice}'`);
    if (!('json' in ctx.request)) {
      return fail(400, 'BAD_REQUEST', ctx.request.body.trim() === '' ? 'Invalid request: the request body is empty' : 'Invalid request: the request body is not valid JSON');
    }
    const validation = validateTaskRequest<T & { model?: string }>(ctx.request.json, rules);
    if (!validation.ok) return fail(400, 'BAD_REQUEST', validation.message);
    const model = validation.body.model;
    if (model !== undefined && !isKnownModel(model)) {
      return fail(404, 'UNKNOWN_MODEL', `Unknown model '${model}': this server has ${LUMINOUS_MODELS.join(', ')} and any name ending in -local`);
    }
    const answer = await handle(validation.body, ctx.signal);
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
    { method: 'POST', pattern: '/qa', handler: taskRoute<ValidQaRequest>(QA_RULES, (body) => qa(body)) },
    { method: 'POST', pattern: '/summarize', handler: taskRoute<ValidSummarizationRequest>(SUMMARIZATION_RULES, (body) => summarize(body)) },
  ],
  sendError(ctx, status, code, message, headers) {
    sendAlephAlphaError(ctx.res, status, upperSnake(code), message, headers);
  },
};
