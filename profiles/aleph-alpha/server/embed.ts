/**
 * The embedding endpoints of the local Aleph Alpha server, with the 1.16 shapes: `POST /embed` (layers × poolings of
 * 5120 dimensions, keyed `layer_<N>` with negative layers resolved, optional tokens), `POST /semantic_embed` (one
 * vector, 5120 or `compress_to_size` 128) and `POST /batch_semantic_embed` (at most 100 prompts, one vector each,
 * token counts summed). Checks as on the task endpoints (token, `nice`, body, model, context size); vectors are
 * deterministic, from the tokenizer `/tokenize` uses, so `num_tokens_prompt_total` agrees with it.
 */
import { answerUnlessFault } from './answer.js';
import { normalized, type PoolingKind, type VectorSpace } from '../../../src/emulator/engine/embedding.js';
import type { Engine } from '../../../src/emulator/engine/index.js';
import { hashString, mix } from '../../../src/emulator/engine/random.js';
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { promptItemProblems, type AlephAlphaPrompt } from '../prompt-item-check.js';
import { sendAlephAlphaError, upperSnake } from './errors.js';
import { contextSize, isKnownModel, LUMINOUS_MODELS, MODEL_VERSION } from './models.js';
import { IMAGE_TOKENS, promptItems } from './task-text.js';
import { validateTaskRequest, type TaskRules } from './task-validate.js';
import { modelTokenizer } from './tokenizer.js';
import { alephAlphaPrelude } from './prelude.js';

export const AA_EMBED_DIMENSIONS = 5120;
export const AA_COMPRESSED_DIMENSIONS = 128;
/** Transformer layers of the local models: layer 0 is the input embeddings, 1…40 the layers' outputs. */
export const AA_LAYERS = 40;
export const MAX_BATCH_PROMPTS = 100;
/** The semantic endpoints' default model (the only one the service offers them for). */
export const SEMANTIC_MODEL = 'luminous-base';

const POOLINGS: readonly PoolingKind[] = ['mean', 'weighted_mean', 'max', 'last_token', 'abs_max'];
const REPRESENTATIONS = ['symmetric', 'document', 'query'];

const HOSTING = { kind: 'string', nullable: true, values: ['aleph-alpha'] } as const;
const COMMON: TaskRules = {
  hosting: HOSTING,
  normalize: { kind: 'boolean' },
  contextual_control_threshold: { kind: 'number', nullable: true },
  control_log_additive: { kind: 'boolean' },
};
const EMBED_RULES: TaskRules = {
  ...COMMON,
  model: { kind: 'string', required: true, filled: true },
  prompt: { kind: 'prompt', required: true },
  tokens: { kind: 'boolean', nullable: true },
  type: { kind: 'string', nullable: true },
};
const SEMANTIC_RULES: TaskRules = {
  ...COMMON,
  model: { kind: 'string', filled: true },
  representation: { kind: 'string', required: true, values: REPRESENTATIONS },
  compress_to_size: { kind: 'integer', nullable: true, min: AA_COMPRESSED_DIMENSIONS, max: AA_COMPRESSED_DIMENSIONS },
};

type Failure = { status: number; code: string; message: string };
const badRequest = (message: string): Failure => ({
  status: 400,
  code: 'BAD_REQUEST',
  message: `Invalid request: ${message}`,
});

/** The prompt's token ids: text encoded, token ids as given, each image as 144 ids derived from its bytes. */
async function promptIds(
  engine: Engine,
  model: string,
  prompt: AlephAlphaPrompt,
  name: string,
): Promise<number[] | Failure> {
  const tokenizer = await modelTokenizer(engine, model);
  const ids: number[] = [];
  for (const [i, item] of promptItems(prompt).entries()) {
    if (item.type === 'text') ids.push(...tokenizer.encode(item.data));
    else if (item.type === 'token_ids') {
      try {
        tokenizer.decode(item.data);
      } catch {
        return badRequest(`'${name}[${i}].data' holds a token id the model does not know`);
      }
      ids.push(...item.data);
    } else {
      const seed = hashString(item.data);
      // Above any text token id, so an image never shares features with words.
      for (let k = 0; k < IMAGE_TOKENS; k++) ids.push(0x40000000 + (mix(seed, k) & 0x3fffffff));
    }
  }
  if (ids.length === 0) return badRequest(`'${name}' is empty: there is nothing to embed`);
  return ids;
}

/** A layer index as the service resolves it (−1 is the last layer), or undefined when the model has no such layer. */
function resolveLayer(layer: number): number | undefined {
  const resolved = layer < 0 ? AA_LAYERS + 1 + layer : layer;
  return resolved >= 0 && resolved <= AA_LAYERS ? resolved : undefined;
}

/** Fields the rules cannot express (lists), checked here; the rest by the task validator. */
function listProblems(body: Record<string, unknown>): string[] {
  const out: string[] = [];
  const { layers, pooling } = body;
  if (
    layers !== undefined &&
    !(Array.isArray(layers) && layers.every((l) => typeof l === 'number' && Number.isInteger(l)))
  )
    out.push("'layers' must be an array of integers");
  if (pooling !== undefined) {
    if (!Array.isArray(pooling)) out.push("'pooling' must be an array of strings");
    else
      pooling.forEach((p, i) => {
        if (!POOLINGS.includes(p as PoolingKind))
          out.push(`'pooling[${i}]' must be one of: ${POOLINGS.map((x) => JSON.stringify(x)).join(', ')}`);
      });
  }
  return out;
}

function without(body: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const rest = { ...body };
  for (const k of keys) delete rest[k];
  return rest;
}

function checkModel(engine: Engine, model: string): Failure | undefined {
  if (isKnownModel(engine, model)) return undefined;
  return {
    status: 404,
    code: 'UNKNOWN_MODEL',
    message: `Unknown model '${model}': this server has ${LUMINOUS_MODELS.join(', ')} and any name ending in -local`,
  };
}

function checkContext(engine: Engine, ids: number[], model: string, name: string): Failure | undefined {
  const context = contextSize(engine, model);
  return ids.length > context
    ? badRequest(`'${name}' has ${ids.length} tokens, more than the ${context} tokens of ${model}`)
    : undefined;
}

type Answer = { ok: true; body: unknown } | ({ ok: false } & Failure);

async function embed(body: Record<string, unknown>, engine: Engine): Promise<Answer> {
  const problems = listProblems(body);
  const check = validateTaskRequest<{
    model: string;
    prompt: AlephAlphaPrompt;
    tokens?: boolean | null;
    normalize?: boolean;
  }>(without(body, 'layers', 'pooling'), EMBED_RULES);
  if (problems.length > 0 || !check.ok)
    return {
      ok: false,
      ...badRequest([...problems, ...(check.ok ? [] : [check.message.replace(/^Invalid request: /, '')])].join('; ')),
    };
  const b = check.body;
  const failure = checkModel(engine, b.model);
  if (failure) return { ok: false, ...failure };
  const ids = await promptIds(engine, b.model, b.prompt, 'prompt');
  if (!Array.isArray(ids)) return { ok: false, ...ids };
  const tooLong = checkContext(engine, ids, b.model, 'prompt');
  if (tooLong) return { ok: false, ...tooLong };

  const layers = (body.layers as number[] | undefined) ?? [-1];
  const poolings = (body.pooling as PoolingKind[] | undefined) ?? ['mean'];
  const embeddings: Record<string, Record<string, number[]>> = {};
  for (const layer of layers) {
    const n = resolveLayer(layer);
    if (n === undefined)
      return {
        ok: false,
        ...badRequest(
          `layer ${layer} does not exist: ${b.model} has layers 0 to ${AA_LAYERS} (or -${AA_LAYERS + 1} to -1)`,
        ),
      };
    const space = { dimensions: AA_EMBED_DIMENSIONS, name: `aleph-alpha/${b.model}/layer_${n}`, context: n > 0 };
    const byPooling: Record<string, number[]> = (embeddings[`layer_${n}`] ??= {});
    for (const p of poolings) {
      const v = await engineVector(engine, ids, space, p);
      if (!Array.isArray(v)) return { ok: false, ...v };
      byPooling[p] = b.normalize === true ? normalized(v) : v;
    }
  }
  const texts =
    b.tokens === true ? (await modelTokenizer(engine, b.model)).tokenTexts(ids.filter((id) => id < 0x40000000)) : null;
  return {
    ok: true,
    body: { model_version: MODEL_VERSION, embeddings, tokens: texts, num_tokens_prompt_total: ids.length },
  };
}

interface SemanticBody {
  model?: string;
  representation: string;
  compress_to_size?: number | null;
  normalize?: boolean;
}

/** The engine's vector, or the 400 a model that cannot embed gets. */
async function engineVector(
  engine: Engine,
  ids: number[],
  space: VectorSpace,
  pooling: PoolingKind,
): Promise<number[] | Failure> {
  const embedded = await engine.embed({ ids, space, pooling });
  return embedded.ok ? embedded.vector : badRequest(`the model cannot embed: ${embedded.reason}`);
}

async function semanticVector(
  engine: Engine,
  ids: number[],
  b: SemanticBody,
  model: string,
): Promise<number[] | Failure> {
  const dimensions = b.compress_to_size ? AA_COMPRESSED_DIMENSIONS : AA_EMBED_DIMENSIONS;
  const space = { dimensions, name: `aleph-alpha/${model}/semantic/${b.representation}`, context: true };
  const v = await engineVector(engine, ids, space, 'mean');
  if (!Array.isArray(v)) return v;
  return b.normalize === true ? normalized(v) : v;
}

async function semantic(body: Record<string, unknown>, engine: Engine): Promise<Answer> {
  const check = validateTaskRequest<SemanticBody & { prompt: AlephAlphaPrompt }>(body, {
    ...SEMANTIC_RULES,
    prompt: { kind: 'prompt', required: true },
  });
  if (!check.ok) return { ok: false, status: 400, code: 'BAD_REQUEST', message: check.message };
  const b = check.body;
  const model = b.model ?? SEMANTIC_MODEL;
  const failure = checkModel(engine, model);
  if (failure) return { ok: false, ...failure };
  const ids = await promptIds(engine, model, b.prompt, 'prompt');
  if (!Array.isArray(ids)) return { ok: false, ...ids };
  const tooLong = checkContext(engine, ids, model, 'prompt');
  if (tooLong) return { ok: false, ...tooLong };
  const embedding = await semanticVector(engine, ids, b, model);
  if (!Array.isArray(embedding)) return { ok: false, ...embedding };
  return {
    ok: true,
    body: {
      model_version: MODEL_VERSION,
      embedding,
      num_tokens_prompt_total: ids.length,
    },
  };
}

async function batchSemantic(body: Record<string, unknown>, engine: Engine): Promise<Answer> {
  const prompts = body.prompts;
  const problems: string[] = [];
  if (prompts === undefined) problems.push("'prompts' is required");
  else if (!Array.isArray(prompts)) problems.push("'prompts' must be of type array");
  else if (prompts.length === 0) problems.push("'prompts' must hold at least one prompt");
  else if (prompts.length > MAX_BATCH_PROMPTS)
    problems.push(`'prompts' holds ${prompts.length} prompts; at most ${MAX_BATCH_PROMPTS} are allowed per request`);
  else {
    prompts.forEach((p, i) => {
      if (typeof p === 'string') return;
      if (!Array.isArray(p))
        problems.push(`'prompts[${i}]' must be a string or an array of prompt items (text, image, token_ids)`);
      else problems.push(...promptItemProblems(p).map((x) => `'prompts[${i}]${x.path}' ${x.message}`));
    });
  }
  const check = validateTaskRequest<SemanticBody>(without(body, 'prompts'), SEMANTIC_RULES);
  if (problems.length > 0 || !check.ok)
    return {
      ok: false,
      ...badRequest([...problems, ...(check.ok ? [] : [check.message.replace(/^Invalid request: /, '')])].join('; ')),
    };
  const b = check.body;
  const model = b.model ?? SEMANTIC_MODEL;
  const failure = checkModel(engine, model);
  if (failure) return { ok: false, ...failure };
  const embeddings: number[][] = [];
  let total = 0;
  for (const [i, prompt] of (prompts as AlephAlphaPrompt[]).entries()) {
    const ids = await promptIds(engine, model, prompt, `prompts[${i}]`);
    if (!Array.isArray(ids)) return { ok: false, ...ids };
    const tooLong = checkContext(engine, ids, model, `prompts[${i}]`);
    if (tooLong) return { ok: false, ...tooLong };
    const vector = await semanticVector(engine, ids, b, model);
    if (!Array.isArray(vector)) return { ok: false, ...vector };
    embeddings.push(vector);
    total += ids.length;
  }
  return { ok: true, body: { model_version: MODEL_VERSION, embeddings, num_tokens_prompt_total: total } };
}

function route(handle: (body: Record<string, unknown>, engine: Engine) => Promise<Answer>): RouteHandler {
  return async (ctx: RouteContext) => {
    const fail = (status: number, code: string, message: string) => sendAlephAlphaError(ctx.res, status, code, message);
    const prelude = alephAlphaPrelude(ctx, { nice: true });
    if (!prelude) return;
    const json = prelude.json;
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      return fail(400, 'BAD_REQUEST', 'Invalid request: the request body must be a JSON object');
    const answer = await handle(json as Record<string, unknown>, ctx.server.engine);
    if (!answer.ok) return fail(answer.status, answer.code, answer.message);

    await answerUnlessFault(ctx, answer.body);
  };
}

export const alephAlphaEmbedProtocol: ProtocolModule = {
  name: 'aleph-alpha-embed',
  prefixes: ['/embed', '/semantic_embed', '/batch_semantic_embed'],
  routes: [
    { method: 'POST', pattern: '/embed', handler: route(embed) },
    { method: 'POST', pattern: '/semantic_embed', handler: route(semantic) },
    { method: 'POST', pattern: '/batch_semantic_embed', handler: route(batchSemantic) },
  ],
  sendError(ctx, status, code, message, headers) {
    sendAlephAlphaError(ctx.res, status, upperSnake(code), message, headers);
  },
};
