/**
 * Embeddings on the local completions server: Azure's `POST /openai/deployments/{deployment}/embeddings?api-version=`
 * and the OpenAI-compatible `POST /v1/embeddings` (model in the body). `input` as the OpenAPI document has it: a
 * string, up to 2048 strings, token ids, or up to 2048 token-id lists. Each input gets a deterministic 1536-dimension
 * unit vector from the engine's tokenizer (cl100k_base, ada-002's own); errors, credentials and request ids as on
 * completions.
 *
 * `encoding_format: "base64"` (what the openai SDK sends by default) answers each vector as the base64 of its
 * little-endian float32 bytes, which the SDK decodes; `"float"` (the default) as numbers. `dimensions` (the
 * text-embedding-3 models) gives unit vectors of that many components; text-embedding-ada-002 refuses it as OpenAI
 * does. OpenAI shortens by cutting the full vector and rescaling it; the engine's vectors are sparse (each token
 * touches a few components), so a cut would often be all zeros: the short vector is pooled in a space of its own
 * size instead (docs/sdk-fidelity-openai.md).
 */
import type { Engine } from '../../../src/emulator/engine/index.js';
import { normalized } from '../../../src/emulator/engine/embedding.js';
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import type { ProtocolModule, RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { accessProblem } from './access.js';
import {
  completionsFaultWording,
  invalidRequest,
  sendCompletionsError,
  stampRequestId,
  type CompletionsError,
  type Dialect,
  sendUnparsableBody,
} from './errors.js';

export const AZURE_EMBED_DIMENSIONS = 1536;
export const MAX_EMBED_INPUTS = 2048;
/** text-embedding-ada-002's context. */
export const MAX_EMBED_TOKENS = 8191;

const isIdList = (v: unknown): v is number[] =>
  Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 0);

/** `input` → token id lists, one per input; a CompletionsError for what the service would refuse. */
export async function inputIds(engine: Engine, input: unknown): Promise<number[][] | CompletionsError> {
  const tokenizer = await engine.tokenizer();
  const invalid = (why: string) => invalidRequest(`'$.input' is invalid: ${why}`, 'input');
  let lists: number[][];
  if (typeof input === 'string') {
    if (input === '') return invalid('it must not be empty');
    lists = [tokenizer.encode(input)];
  } else if (Array.isArray(input)) {
    if (input.length === 0) return invalid('it must hold at least one item');
    if (input.length > MAX_EMBED_INPUTS)
      return invalid(`it holds ${input.length} items; the maximum is ${MAX_EMBED_INPUTS}`);
    if (input.every((x) => typeof x === 'string')) {
      const empty = (input as string[]).indexOf('');
      if (empty >= 0) return invalid(`item ${empty} is empty`);
      lists = (input as string[]).map((s) => tokenizer.encode(s));
    } else if (isIdList(input)) {
      lists = [input];
    } else if (input.every(isIdList)) {
      lists = input as number[][];
    } else {
      return invalid('expected a string, an array of strings, an array of token ids, or an array of token id arrays');
    }
    for (const ids of lists) {
      try {
        tokenizer.decode(ids);
      } catch {
        return invalid('it holds a token id outside the vocabulary');
      }
    }
  } else {
    return input === undefined || input === null
      ? invalidRequest("'input' is a required property", 'input')
      : invalid('expected a string or an array');
  }
  const long = lists.find((ids) => ids.length > MAX_EMBED_TOKENS);
  if (long) {
    return invalidRequest(
      `This model's maximum context length is ${MAX_EMBED_TOKENS} tokens, however you requested ${long.length} tokens (${long.length} in your prompt; 0 for the completion). Please reduce your prompt; or completion length.`,
      null,
    );
  }
  return lists;
}

const ENCODINGS = ['float', 'base64'];

function checkBody(json: unknown, dialect: Dialect): CompletionsError | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return invalidRequest('The request body must be a JSON object', null);
  const body = json as Record<string, unknown>;
  for (const name of ['user', 'input_type', 'model'] as const) {
    if (body[name] !== undefined && typeof body[name] !== 'string')
      return invalidRequest(`${JSON.stringify(body[name])} is not of type 'string' - '${name}'`, name);
  }
  if (dialect === 'openai' && (typeof body.model !== 'string' || body.model === '')) {
    return invalidRequest('you must provide a model parameter', 'model');
  }
  const encoding = body.encoding_format;
  if (encoding != null && !ENCODINGS.includes(encoding as string)) {
    return invalidRequest(
      `${JSON.stringify(encoding)} is not one of ['float', 'base64'] - 'encoding_format'`,
      'encoding_format',
    );
  }
  const dimensions = body.dimensions;
  if (dimensions != null) {
    if (typeof dimensions !== 'number' || !Number.isInteger(dimensions))
      return invalidRequest(`${JSON.stringify(dimensions)} is not of type 'integer' - 'dimensions'`, 'dimensions');
    if (dimensions < 1)
      return invalidRequest(`${dimensions} is less than the minimum of 1 - 'dimensions'`, 'dimensions');
    if (dimensions > AZURE_EMBED_DIMENSIONS)
      return invalidRequest(
        `${dimensions} is greater than the maximum of ${AZURE_EMBED_DIMENSIONS} - 'dimensions'`,
        'dimensions',
      );
  }
  return undefined;
}

/** Models whose vectors have a fixed size: they refuse `dimensions` (OpenAI's wording). */
function fixedSize(model: string): boolean {
  return /ada-002/.test(model);
}

/** The base64 of the vector's little-endian float32 bytes: what `encoding_format: "base64"` answers. */
export function base64Vector(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString('base64');
}

function embeddingsRoute(dialect: Dialect): RouteHandler {
  return async (ctx: RouteContext) => {
    stampRequestId(ctx);
    const denied = accessProblem(ctx, dialect, '2022-03-01-preview or 2024-10-21');
    if (denied) return sendCompletionsError(ctx, denied.status, denied.error);
    const version = ctx.request.query['api-version'];
    if (!('json' in ctx.request)) return sendUnparsableBody(ctx);
    const problem = checkBody(ctx.request.json, dialect);
    if (problem) return sendCompletionsError(ctx, 400, problem);
    const body = ctx.request.json as {
      input?: unknown;
      model?: string;
      encoding_format?: string | null;
      dimensions?: number | null;
    };
    const model = dialect === 'azure' ? ctx.params.deployment! : body.model!;
    if (body.dimensions != null && fixedSize(model))
      return sendCompletionsError(ctx, 400, invalidRequest('This model does not support specifying dimensions.', null));
    const lists = await inputIds(ctx.server.engine, body.input);
    if (!Array.isArray(lists)) return sendCompletionsError(ctx, 400, lists);

    const fault = takeFault(ctx, false);
    if (await applyFault(fault, ctx, completionsFaultWording(ctx, version))) return;

    const space = { dimensions: body.dimensions ?? AZURE_EMBED_DIMENSIONS, name: `openai/${model}`, context: true };
    const tokens = lists.reduce((sum, ids) => sum + ids.length, 0);
    const encode = body.encoding_format === 'base64' ? base64Vector : (v: number[]) => v;
    const vectors: number[][] = [];
    for (const ids of lists) {
      const embedded = await ctx.server.engine.embed({ ids, space });
      if (!embedded.ok)
        return sendCompletionsError(
          ctx,
          400,
          invalidRequest(`The model ${model} cannot embed: ${embedded.reason}`, null),
        );
      vectors.push(normalized(embedded.vector));
    }
    await sendAnswer(ctx, fault, {
      object: 'list',
      data: vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: encode(vector),
      })),
      model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  };
}

export const azureOpenAiEmbedProtocol: ProtocolModule = {
  name: 'azure-openai-embed',
  prefixes: ['/v1/embeddings'],
  routes: [
    { method: 'POST', pattern: '/openai/deployments/:deployment/embeddings', handler: embeddingsRoute('azure') },
    { method: 'POST', pattern: '/v1/embeddings', handler: embeddingsRoute('openai') },
  ],
  sendError(ctx, status, code, message, headers) {
    sendCompletionsError(ctx, status, { code, message }, headers);
  },
};
