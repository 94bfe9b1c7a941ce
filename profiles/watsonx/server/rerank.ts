/**
 * `POST /ml/v1/text/rerank?version=` of the local watsonx server: checks as the service makes them (credentials,
 * `version`, a body of `model_id`, `inputs` — at most 1000 `{text}` —, `query`, exactly one of
 * `project_id`/`space_id`, `parameters: {truncate_input_tokens ≥ 1, return_options: {top_n ≥ 1, inputs, query}}`;
 * then the model: one the catalog lists, with the `rerank` function), then a score per input — the cosine
 * similarity of its embedding and the query's, from the engine (src/emulator/engine/rerank-scores.ts) —, best
 * first, cut to `top_n`. A query and text longer together than the model's input limit is a 400 unless
 * `truncate_input_tokens` cuts them. The fault switches apply after the checks, as on every route.
 */
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import type { ProtocolModule, RouteContext } from '../../../src/emulator/core/router.js';
import { rerankScores, rerankTokenCounts } from '../../../src/emulator/engine/rerank-scores.js';
import { isRecord } from '../../../src/contract/wire-fields.js';
import { modelNoSupportForFunction, sendWatsonxError, watsonxFaultWording } from './errors.js';
import { bodyAndModel } from './model-route.js';
import { watsonxPrelude } from './prelude.js';

export const WATSONX_RERANK_MAX_INPUTS = 1000;

const FIELDS = new Set(['model_id', 'inputs', 'query', 'project_id', 'space_id', 'parameters']);
const RETURN_OPTIONS = new Set(['top_n', 'inputs', 'query']);

interface RerankBody {
  model_id: string;
  texts: string[];
  query: string;
  truncate?: number;
  topN?: number;
  returnInputs: boolean;
  returnQuery: boolean;
}

const positiveInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1;

/** Every problem with the body, in the service's words; the body when there is none. */
export function checkRerankBody(json: unknown): { ok: true; body: RerankBody } | { ok: false; problems: string[] } {
  if (!isRecord(json)) return { ok: false, problems: ['the request body must be a JSON object'] };
  const problems: string[] = [];
  for (const key of Object.keys(json)) if (!FIELDS.has(key)) problems.push(`'${key}' is not a recognized field`);
  const { model_id: model, inputs, query, project_id: project, space_id: space, parameters } = json;
  if (typeof model !== 'string' || model === '')
    problems.push(model === undefined ? "'model_id' is required" : "'model_id' must be a non-empty string");
  if (query === undefined) problems.push("'query' is required");
  else if (typeof query !== 'string') problems.push("'query' must be of type string");
  else if (query === '') problems.push("'query' cannot be missing or empty in the request body");
  if (!Array.isArray(inputs))
    problems.push(inputs === undefined ? "'inputs' is required" : "'inputs' must be of type array");
  else if (inputs.length > WATSONX_RERANK_MAX_INPUTS)
    problems.push(`'inputs' must have at most ${WATSONX_RERANK_MAX_INPUTS} items, got ${inputs.length}`);
  else {
    inputs.forEach((item, i) => {
      if (!isRecord(item)) problems.push(`'inputs[${i}]' must be of type object`);
      else if (typeof item.text !== 'string')
        problems.push(
          item.text === undefined ? `'inputs[${i}].text' is required` : `'inputs[${i}].text' must be of type string`,
        );
      else
        for (const key of Object.keys(item))
          if (key !== 'text') problems.push(`'inputs[${i}].${key}' is not a recognized field`);
    });
  }
  for (const [name, v] of [
    ['project_id', project],
    ['space_id', space],
  ] as const) {
    if (v !== undefined && typeof v !== 'string') problems.push(`'${name}' must be of type string`);
  }
  if ((project === undefined) === (space === undefined))
    problems.push("exactly one of 'project_id' or 'space_id' must be given in the request body");
  let truncate: number | undefined;
  let topN: number | undefined;
  let returnInputs = false;
  let returnQuery = false;
  if (parameters !== undefined) {
    if (!isRecord(parameters)) problems.push("'parameters' must be of type object");
    else {
      for (const key of Object.keys(parameters))
        if (key !== 'truncate_input_tokens' && key !== 'return_options')
          problems.push(`'parameters.${key}' is not a recognized field`);
      const t = parameters.truncate_input_tokens;
      if (t !== undefined && !positiveInt(t))
        problems.push("'parameters.truncate_input_tokens' must be an integer greater than or equal to 1");
      else if (positiveInt(t)) truncate = t;
      const ro = parameters.return_options;
      if (ro !== undefined) {
        if (!isRecord(ro)) problems.push("'parameters.return_options' must be of type object");
        else {
          for (const key of Object.keys(ro))
            if (!RETURN_OPTIONS.has(key)) problems.push(`'parameters.return_options.${key}' is not a recognized field`);
          if (ro.top_n !== undefined && !positiveInt(ro.top_n))
            problems.push("'parameters.return_options.top_n' must be an integer greater than or equal to 1");
          else if (positiveInt(ro.top_n)) topN = ro.top_n;
          for (const key of ['inputs', 'query'] as const)
            if (ro[key] !== undefined && typeof ro[key] !== 'boolean')
              problems.push(`'parameters.return_options.${key}' must be of type boolean`);
          returnInputs = ro.inputs === true;
          returnQuery = ro.query === true;
        }
      }
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    body: {
      model_id: model as string,
      texts: (inputs as Array<{ text: string }>).map((i) => i.text),
      query: query as string,
      ...(truncate !== undefined ? { truncate } : {}),
      ...(topN !== undefined ? { topN } : {}),
      returnInputs,
      returnQuery,
    },
  };
}

async function rerank(ctx: RouteContext): Promise<void> {
  const prelude = watsonxPrelude(ctx, { field: 'inputs' });
  if (!prelude) return;
  const opened = bodyAndModel(ctx, checkRerankBody(prelude.json), 'text-rerank', 'rerank');
  if (!opened) return;
  const { body, model } = opened;

  const maxTokens = model.contextTokens;
  const counts = await rerankTokenCounts(ctx.server.engine, body.query, body.texts);
  const cut = (n: number) => (body.truncate !== undefined ? Math.min(n, body.truncate) : n);
  const tooLong = counts.texts.findIndex((n) => cut(n) + cut(counts.query) > maxTokens);
  if (tooLong >= 0) {
    return sendWatsonxError(ctx.res, 400, [
      {
        code: 'invalid_input_argument',
        message: `Token sequence length of the query and inputs[${tooLong}] (${cut(counts.query) + cut(counts.texts[tooLong]!)}) exceeds the maximum sequence length for this model (${maxTokens}); set parameters.truncate_input_tokens to truncate them`,
      },
    ]);
  }

  const fault = takeFault(ctx, false);
  if (await applyFault(fault, ctx, watsonxFaultWording(ctx.res))) return;

  const scored = await rerankScores(ctx.server.engine, {
    query: body.query,
    texts: body.texts,
    space: `watsonx/${body.model_id}`,
    ...(body.truncate !== undefined ? { truncate: body.truncate } : {}),
  });
  if (!scored.ok)
    return sendWatsonxError(ctx.res, 400, [modelNoSupportForFunction(body.model_id, 'rerank', scored.reason)]);
  const ranked = scored.scores
    .map((score, index) => ({ index, score }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, body.topN ?? body.texts.length);
  await sendAnswer(ctx, fault, {
    model_id: body.model_id,
    results: ranked.map((r) => ({
      index: r.index,
      score: r.score,
      ...(body.returnInputs ? { input: { text: body.texts[r.index]! } } : {}),
    })),
    created_at: new Date().toISOString(),
    input_token_count: scored.inputTokens,
    ...(body.returnQuery ? { query: body.query } : {}),
  });
}

export const watsonxRerankProtocol: ProtocolModule = {
  name: 'watsonx-rerank',
  prefixes: ['/ml/v1/text/rerank'],
  routes: [{ method: 'POST', pattern: '/ml/v1/text/rerank', handler: rerank }],
  sendError(ctx, status, code, message, headers) {
    sendWatsonxError(ctx.res, status, [{ code, message }], headers);
  },
};
