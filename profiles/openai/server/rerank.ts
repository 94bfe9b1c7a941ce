/**
 * `POST /v1/rerank` on the local OpenAI-compatible front, in the shape vLLM, llama.cpp's server and TEI's router
 * answer (the Jina/Cohere rerank API): `{model, query, documents: [string], top_n?, return_documents?}` →
 * `{id, model, usage: {total_tokens}, results: [{index, document: {text}, relevance_score}]}`, best first. Scores are
 * the cosine similarity of each document's embedding and the query's (src/emulator/engine/rerank-scores.ts).
 * Errors, credentials and request ids as on the other `/v1` routes; the fault switches apply after the checks.
 */
import { randomBytes } from 'node:crypto';
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import type { ProtocolModule, RouteContext } from '../../../src/emulator/core/router.js';
import { rerankScores } from '../../../src/emulator/engine/rerank-scores.js';
import { accessProblem } from './access.js';
import {
  completionsFaultWording,
  invalidRequest,
  sendCompletionsError,
  sendUnparsableBody,
  stampRequestId,
  type CompletionsError,
} from './errors.js';

export const OPENAI_RERANK_MAX_DOCUMENTS = 1000;

interface RerankBody {
  model: string;
  query: string;
  documents: string[];
  top_n?: number;
  return_documents: boolean;
}

function checkBody(json: unknown): RerankBody | CompletionsError {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return invalidRequest('The request body must be a JSON object', null);
  const body = json as Record<string, unknown>;
  if (typeof body.model !== 'string' || body.model === '')
    return invalidRequest('you must provide a model parameter', 'model');
  if (typeof body.query !== 'string' || body.query === '')
    return invalidRequest("'query' is a required property and must be a non-empty string", 'query');
  const documents = body.documents;
  if (!Array.isArray(documents) || documents.length === 0)
    return invalidRequest("'documents' must be a non-empty array of strings", 'documents');
  if (documents.length > OPENAI_RERANK_MAX_DOCUMENTS)
    return invalidRequest(
      `'documents' holds ${documents.length} items; the maximum is ${OPENAI_RERANK_MAX_DOCUMENTS}`,
      'documents',
    );
  // vLLM also takes {text} objects, as Jina's API does.
  const texts: string[] = [];
  for (const [i, d] of documents.entries()) {
    const text =
      typeof d === 'string' ? d : typeof d === 'object' && d !== null ? (d as { text?: unknown }).text : undefined;
    if (typeof text !== 'string') return invalidRequest(`'documents[${i}]' must be a string`, 'documents');
    texts.push(text);
  }
  const topN = body.top_n;
  if (topN !== undefined && topN !== null && !(typeof topN === 'number' && Number.isInteger(topN) && topN >= 1))
    return invalidRequest(`${JSON.stringify(topN)} is not a positive integer - 'top_n'`, 'top_n');
  if (body.return_documents !== undefined && typeof body.return_documents !== 'boolean')
    return invalidRequest(
      `${JSON.stringify(body.return_documents)} is not of type 'boolean' - 'return_documents'`,
      'return_documents',
    );
  return {
    model: body.model,
    query: body.query,
    documents: texts,
    ...(typeof topN === 'number' ? { top_n: topN } : {}),
    return_documents: body.return_documents !== false,
  };
}

async function rerank(ctx: RouteContext): Promise<void> {
  stampRequestId(ctx);
  const denied = accessProblem(ctx, 'openai', '2024-10-21');
  if (denied) return sendCompletionsError(ctx, denied.status, denied.error);
  if (!('json' in ctx.request)) return sendUnparsableBody(ctx);
  const body = checkBody(ctx.request.json);
  if ('message' in body) return sendCompletionsError(ctx, 400, body);

  const fault = takeFault(ctx, false);
  if (await applyFault(fault, ctx, completionsFaultWording(ctx, undefined))) return;

  const scored = await rerankScores(ctx.server.engine, {
    query: body.query,
    texts: body.documents,
    space: `openai/${body.model}`,
  });
  if (!scored.ok)
    return sendCompletionsError(
      ctx,
      400,
      invalidRequest(`The model ${body.model} cannot rerank: ${scored.reason}`, null),
    );
  const ranked = scored.scores
    .map((score, index) => ({ index, score }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, body.top_n ?? body.documents.length);
  await sendAnswer(ctx, fault, {
    id: `rerank-${randomBytes(12).toString('hex')}`,
    model: body.model,
    usage: { total_tokens: scored.inputTokens },
    results: ranked.map((r) => ({
      index: r.index,
      ...(body.return_documents ? { document: { text: body.documents[r.index]! } } : {}),
      relevance_score: r.score,
    })),
  });
}

export const openAiRerankProtocol: ProtocolModule = {
  name: 'openai-rerank',
  prefixes: ['/v1/rerank'],
  routes: [{ method: 'POST', pattern: '/v1/rerank', handler: rerank }],
  sendError(ctx, status, code, message, headers) {
    sendCompletionsError(ctx, status, { code, message }, headers);
  },
};
