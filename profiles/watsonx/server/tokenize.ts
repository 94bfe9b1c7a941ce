/**
 * `POST /ml/v1/text/tokenization` of the local watsonx server: the engine's real tokenizer (cl100k_base) counts the
 * input and, with `parameters.return_tokens`, lists the token texts. Checks as the service makes them: credentials,
 * `version`, a body of `model_id`, `input`, exactly one of `project_id`/`space_id`, and `parameters`, and a model the
 * catalog lists. Fault switches apply after the checks (an auxiliary route: its own fault, or one queued for its path).
 */
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import type { ProtocolModule, RouteContext } from '../../../src/emulator/core/router.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import { modelNotSupported, sendWatsonxError, watsonxFaultWording } from './errors.js';
import { findModel } from './model-catalog.js';
import { watsonxPrelude } from './prelude.js';
import { isRecord } from '../../../src/contract/wire-fields.js';

const PREFIX = 'Json document validation error: ';
const FIELDS = new Set(['model_id', 'input', 'project_id', 'space_id', 'parameters']);

interface TokenizationBody {
  model_id: string;
  input: string;
  returnTokens: boolean;
}

/** The body, or the validation errors in the service's wording (every problem, not just the first). */
function validate(json: unknown): { ok: true; body: TokenizationBody } | { ok: false; messages: string[] } {
  if (!isRecord(json)) return { ok: false, messages: ['the request body must be a JSON object'] };
  const messages: string[] = [];
  for (const key of Object.keys(json)) if (!FIELDS.has(key)) messages.push(`'${key}' is not a recognized field`);
  for (const key of ['model_id', 'input'] as const) {
    if (json[key] === undefined) messages.push(`'${key}' is required`);
    else if (typeof json[key] !== 'string') messages.push(`'${key}' must be of type string`);
  }
  if (json.input === '') messages.push("'input' cannot be missing or empty in the request body");
  for (const key of ['project_id', 'space_id'] as const) {
    if (json[key] !== undefined && typeof json[key] !== 'string') messages.push(`'${key}' must be of type string`);
  }
  if ((json.project_id === undefined) === (json.space_id === undefined))
    messages.push("exactly one of 'project_id' or 'space_id' must be given in the request body");
  const parameters = json.parameters;
  if (parameters !== undefined) {
    if (!isRecord(parameters)) messages.push("'parameters' must be of type object");
    else {
      for (const key of Object.keys(parameters))
        if (key !== 'return_tokens') messages.push(`'parameters.${key}' is not a recognized field`);
      if (parameters.return_tokens !== undefined && typeof parameters.return_tokens !== 'boolean')
        messages.push("'parameters.return_tokens' must be of type boolean");
    }
  }
  if (messages.length > 0) return { ok: false, messages };
  const returnTokens = isRecord(parameters) && parameters.return_tokens === true;
  return { ok: true, body: { model_id: json.model_id as string, input: json.input as string, returnTokens } };
}

async function tokenization(ctx: RouteContext): Promise<void> {
  const prelude = watsonxPrelude(ctx, { field: 'input' });
  if (!prelude) return;
  const validation = validate(prelude.json);
  if (!validation.ok)
    return sendWatsonxError(
      ctx.res,
      400,
      validation.messages.map((m) => ({ code: 'json_validation_error', message: PREFIX + m })),
    );
  const { body } = validation;
  if (!findModel(body.model_id, ctx.server.engine))
    return sendWatsonxError(ctx.res, 404, [modelNotSupported(body.model_id, 'text-tokenization')]);
  const fault = takeFault(ctx, false, { auxiliary: true });
  if (await applyFault(fault, ctx, watsonxFaultWording(ctx.res))) return;

  const result: { token_count: number; tokens?: string[] } = { token_count: 0 };
  // An engine in front of another service counts with that service's tokenizer when it has one.
  const counted = await ctx.server.engine.tokenizeText?.(body.input, { tokens: body.returnTokens, signal: ctx.signal });
  if (counted) {
    result.token_count = counted.count;
    if (body.returnTokens && counted.tokens) result.tokens = counted.tokens;
  } else {
    const tokenizer = await ctx.server.engine.tokenizer();
    const ids = tokenizer.encode(body.input);
    result.token_count = ids.length;
    if (body.returnTokens) result.tokens = tokenizer.tokenTexts(ids);
  }
  await sendAnswer(ctx, fault, { model_id: body.model_id, result });
}

export const watsonxTokenizeProtocol: ProtocolModule = {
  name: 'watsonx-tokenize',
  prefixes: ['/ml/v1/text/tokenization'],
  routes: [{ method: 'POST', pattern: '/ml/v1/text/tokenization', handler: tokenization }],
  sendError(ctx, status, code, message, headers) {
    sendWatsonxError(ctx.res, status, [{ code, message }], headers);
  },
};
