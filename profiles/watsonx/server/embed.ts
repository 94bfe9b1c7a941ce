/**
 * `POST /ml/v1/text/embeddings?version=` of the local watsonx server: checks as the service makes them (credentials,
 * `version`, body: `model_id`, `inputs` — at most 1000 —, one of `project_id`/`space_id`, `parameters`; then the
 * model: one the catalog lists, with the `embedding` function), then one deterministic unit vector per input, of
 * the model's own dimension (slate-125m 768, slate-30m 384, multilingual-e5-large 1024, …: catalog-data.ts), from
 * the engine's tokenizer. A text longer than the model's input limit is a 400 unless `truncate_input_tokens` cuts it
 * (from the right, keeping its start).
 */
import { normalized } from '../../../src/emulator/engine/embedding.js';
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import type { ProtocolModule, RouteContext } from '../../../src/emulator/core/router.js';
import { modelNoSupportForFunction, sendWatsonxError, watsonxFaultWording } from './errors.js';
import { embeddingDimensions } from './model-catalog.js';
import { bodyAndModel } from './model-route.js';
import { watsonxPrelude } from './prelude.js';
import { answerIso } from '../../../src/emulator/core/answer-clock.js';

export const WATSONX_EMBED_MAX_INPUTS = 1000;

const FIELDS = new Set(['inputs', 'model_id', 'project_id', 'space_id', 'parameters']);

interface EmbeddingsBody {
  inputs: string[];
  model_id: string;
  truncate: number;
  inputText: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every problem with the body, in the service's words; the body when there is none. */
export function checkEmbeddingsBody(
  json: unknown,
): { ok: true; body: EmbeddingsBody } | { ok: false; problems: string[] } {
  if (!isObject(json)) return { ok: false, problems: ['the request body must be a JSON object'] };
  const problems: string[] = [];
  for (const key of Object.keys(json)) if (!FIELDS.has(key)) problems.push(`'${key}' is not a recognized field`);
  const { inputs, model_id: model, project_id: project, space_id: space, parameters } = json;
  if (typeof model !== 'string' || model === '')
    problems.push(model === undefined ? "'model_id' is required" : "'model_id' must be a non-empty string");
  if (!Array.isArray(inputs))
    problems.push(inputs === undefined ? "'inputs' is required" : "'inputs' must be of type array");
  else if (inputs.length === 0) problems.push("'inputs' must have at least 1 items");
  else if (inputs.length > WATSONX_EMBED_MAX_INPUTS)
    problems.push(`'inputs' must have at most ${WATSONX_EMBED_MAX_INPUTS} items, got ${inputs.length}`);
  else {
    const bad = inputs.findIndex((t) => typeof t !== 'string' || t === '');
    if (bad >= 0)
      problems.push(
        typeof inputs[bad] === 'string'
          ? `'inputs[${bad}]' cannot be empty`
          : `'inputs[${bad}]' must be of type string`,
      );
  }
  for (const [name, v] of [
    ['project_id', project],
    ['space_id', space],
  ] as const) {
    if (v !== undefined && typeof v !== 'string') problems.push(`'${name}' must be of type string`);
  }
  if ((project === undefined) === (space === undefined))
    problems.push("exactly one of 'project_id' or 'space_id' must be given in the request body");
  let truncate = 0;
  let inputText = false;
  if (parameters !== undefined) {
    if (!isObject(parameters)) problems.push("'parameters' must be of type object");
    else {
      for (const key of Object.keys(parameters))
        if (key !== 'truncate_input_tokens' && key !== 'return_options')
          problems.push(`'parameters.${key}' is not a recognized field`);
      const t = parameters.truncate_input_tokens;
      if (t !== undefined && !(typeof t === 'number' && Number.isInteger(t) && t >= 0))
        problems.push("'parameters.truncate_input_tokens' must be an integer greater than or equal to 0");
      else if (typeof t === 'number') truncate = t;
      const ro = parameters.return_options;
      if (ro !== undefined) {
        if (
          !isObject(ro) ||
          Object.keys(ro).some((k) => k !== 'input_text') ||
          (ro.input_text !== undefined && typeof ro.input_text !== 'boolean')
        ) {
          problems.push("'parameters.return_options' must be an object with the boolean 'input_text'");
        } else inputText = ro.input_text === true;
      }
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, body: { inputs: inputs as string[], model_id: model as string, truncate, inputText } };
}

async function embeddings(ctx: RouteContext): Promise<void> {
  const prelude = watsonxPrelude(ctx, { field: 'inputs' });
  if (!prelude) return;
  const opened = bodyAndModel(ctx, checkEmbeddingsBody(prelude.json), 'text-embeddings', 'embedding');
  if (!opened) return;
  const { body, model } = opened;
  const maxTokens = model.contextTokens;

  const tokenizer = await ctx.server.engine.tokenizer();
  const tokenized = body.inputs.map((text) => {
    const ids = tokenizer.encode(text);
    return body.truncate > 0 && ids.length > body.truncate ? ids.slice(0, body.truncate) : ids;
  });
  const tooLong = tokenized.findIndex((ids) => ids.length > maxTokens);
  if (tooLong >= 0) {
    return sendWatsonxError(ctx.res, 400, [
      {
        code: 'invalid_input_argument',
        message: `Token sequence length of inputs[${tooLong}] (${tokenized[tooLong]!.length}) exceeds the maximum sequence length for this model (${maxTokens}); set parameters.truncate_input_tokens to truncate it`,
      },
    ]);
  }

  const fault = takeFault(ctx, false);
  if (await applyFault(fault, ctx, watsonxFaultWording(ctx.res))) return;

  const space = { dimensions: embeddingDimensions(model), name: `watsonx/${body.model_id}`, context: true };
  const vectors: number[][] = [];
  for (const ids of tokenized) {
    const embedded = await ctx.server.engine.embed({ ids, space });
    if (!embedded.ok)
      return sendWatsonxError(ctx.res, 400, [modelNoSupportForFunction(body.model_id, 'embedding', embedded.reason)]);
    vectors.push(normalized(embedded.vector));
  }
  await sendAnswer(ctx, fault, {
    model_id: body.model_id,
    results: vectors.map((embedding, i) => ({
      embedding,
      ...(body.inputText ? { input: body.inputs[i] } : {}),
    })),
    created_at: answerIso(),
    input_token_count: tokenized.reduce((sum, ids) => sum + ids.length, 0),
  });
}

export const watsonxEmbedProtocol: ProtocolModule = {
  name: 'watsonx-embed',
  prefixes: ['/ml/v1/text/embeddings'],
  routes: [{ method: 'POST', pattern: '/ml/v1/text/embeddings', handler: embeddings }],
  sendError(ctx, status, code, message, headers) {
    sendWatsonxError(ctx.res, status, [{ code, message }], headers);
  },
};
