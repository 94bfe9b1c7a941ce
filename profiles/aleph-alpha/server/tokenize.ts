/**
 * Tokens on the local Aleph Alpha server: `POST /tokenize`, `POST /detokenize` and `GET /models/{model}/tokenizer`,
 * all with the one tokenizer of server-tokenizer.ts, so a client that tokenizes offline with the served file gets
 * the ids `/tokenize` answers with. Bodies are checked field by field as the 1.16 schemas have them.
 */
import { randomUUID } from 'node:crypto';
import { sendJson } from '../../../src/emulator/core/respond.js';
import type { ProtocolModule, RouteContext } from '../../../src/emulator/core/router.js';
import { isAuthorized, UNAUTHENTICATED_MESSAGE } from './auth.js';
import { sendAlephAlphaError, upperSnake } from './errors.js';
import { isKnownModel, LUMINOUS_MODELS } from './models.js';
import { localTokenizerJson, modelTokenizer } from './tokenizer.js';
import { alephAlphaPrelude } from './prelude.js';

type FieldType = 'string' | 'boolean' | 'integer list';

function hasType(value: unknown, type: FieldType): boolean {
  if (type === 'integer list')
    return Array.isArray(value) && value.every((v) => typeof v === 'number' && Number.isInteger(v));
  return typeof value === type;
}

/** Every field required and of its type, no others: the schema's message for the first problem, or undefined. */
function problemWith(body: unknown, fields: Record<string, FieldType>): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'Invalid request: the request body must be a JSON object';
  const record = body as Record<string, unknown>;
  const unknown = Object.keys(record).find((k) => !Object.hasOwn(fields, k));
  if (unknown !== undefined) return `Invalid request: unknown field '${unknown}'`;
  for (const [name, type] of Object.entries(fields)) {
    if (record[name] === undefined) return `Invalid request: missing field '${name}'`;
    if (!hasType(record[name], type))
      return `Invalid request: '${name}' must be ${type === 'integer list' ? 'a list of integers' : `a ${type}`}`;
  }
  return undefined;
}

/** Auth, JSON, fields, model: the body when all is well, after answering the problem otherwise. */
function checked(ctx: RouteContext, fields: Record<string, FieldType>): Record<string, unknown> | undefined {
  const prelude = alephAlphaPrelude(ctx, { nice: false });
  if (!prelude) return undefined;
  const problem = problemWith(prelude.json, fields);
  if (problem !== undefined) return void sendAlephAlphaError(ctx.res, 400, 'BAD_REQUEST', problem);
  const body = prelude.json as Record<string, unknown>;
  if (!knownModel(ctx, body.model as string)) return undefined;
  return body;
}

function knownModel(ctx: RouteContext, model: string): boolean {
  if (isKnownModel(ctx.server.engine, model)) return true;
  sendAlephAlphaError(
    ctx.res,
    404,
    'UNKNOWN_MODEL',
    `Unknown model '${model}': this server has ${LUMINOUS_MODELS.join(', ')} and any name ending in -local`,
  );
  return false;
}

/** POST /tokenize — `{model, prompt, tokens, token_ids}` → `{tokens?, token_ids?}`, each only when asked for. */
async function tokenize(ctx: RouteContext): Promise<void> {
  const body = checked(ctx, { model: 'string', prompt: 'string', tokens: 'boolean', token_ids: 'boolean' });
  if (!body) return;
  const tokenizer = await modelTokenizer(ctx.server.engine, body.model as string);
  const ids = tokenizer.encode(body.prompt as string);
  sendJson(ctx.res, 200, {
    ...(body.tokens === true ? { tokens: tokenizer.tokenTexts(ids) } : {}),
    ...(body.token_ids === true ? { token_ids: ids } : {}),
  });
}

/** POST /detokenize — `{model, token_ids}` → `{result}`; an id outside the vocabulary is a 400. */
async function detokenize(ctx: RouteContext): Promise<void> {
  const body = checked(ctx, { model: 'string', token_ids: 'integer list' });
  if (!body) return;
  const tokenizer = await modelTokenizer(ctx.server.engine, body.model as string);
  let text: string;
  try {
    text = tokenizer.decode(body.token_ids as number[]);
  } catch (e) {
    return sendAlephAlphaError(ctx.res, 400, 'BAD_REQUEST', `Invalid request: ${(e as Error).message}`);
  }
  sendJson(ctx.res, 200, { result: text });
}

/** GET /models/{model}/tokenizer — the model's tokenizer.json. */
function tokenizerFile(ctx: RouteContext): void {
  ctx.res.setHeader('x-request-id', randomUUID());
  if (!isAuthorized(ctx)) return sendAlephAlphaError(ctx.res, 401, 'UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
  const model = ctx.params.model as string;
  if (!knownModel(ctx, model)) return;
  if (model === ctx.server.engine.modelName)
    return sendAlephAlphaError(
      ctx.res,
      404,
      'TOKENIZER_NOT_AVAILABLE',
      `The model '${model}' is a GGUF model: its tokenizer is in the model file, not a tokenizer.json; use /tokenize`,
    );
  sendJson(ctx.res, 200, localTokenizerJson());
}

export const alephAlphaTokenizeProtocol: ProtocolModule = {
  name: 'aleph-alpha-tokenize',
  prefixes: ['/tokenize', '/detokenize', '/models/'],
  routes: [
    { method: 'POST', pattern: '/tokenize', handler: tokenize },
    { method: 'POST', pattern: '/detokenize', handler: detokenize },
    { method: 'GET', pattern: '/models/:model/tokenizer', handler: tokenizerFile },
  ],
  sendError(ctx, status, code, message, headers) {
    sendAlephAlphaError(ctx.res, status, upperSnake(code), message, headers);
  },
};
