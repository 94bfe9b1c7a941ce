/**
 * The Azure OpenAI embeddings contract. The request schema is compiled with ajv from the project's record of the
 * OpenAPI document (`POST /deployments/{deployment-id}/embeddings` in azure-openai-contract.ts, beside the
 * completions operation azure-openapi.ts loads); the OpenAPI-only keywords (`example`, `nullable`) are translated as
 * there.
 *
 * The document declares the 200 body as `type: string` — a known spec bug (docs/protocols/azure-openai.md: "parse
 * the JSON"). The answer is therefore checked against the shape the wire-facts page gives instead:
 * `{object: "list", model, data: [{index, object: "embedding", embedding}], usage: {prompt_tokens, total_tokens}}`.
 * Error answers share the completions operation's `errorResponse` (completionsErrorSchema in azure-openapi.ts).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { z } from 'zod';
import { AZURE_OPENAI_CONTRACT, type AzureOperation } from './azure-openai-contract.js';

export { completionsErrorSchema as embeddingsErrorSchema, schemaErrors } from './azure-openapi.js';

export const EMBEDDINGS_PATH = AZURE_OPENAI_CONTRACT.operations.embeddings.path;

type Node = Record<string, unknown>;

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The embeddings operation as the contract has it (it uses no `$ref`s, so none are resolved). */
export function embeddingsOperation(): AzureOperation {
  const op = AZURE_OPENAI_CONTRACT.operations.embeddings;
  if (JSON.stringify(op).includes('"$ref"'))
    throw new Error('the embeddings operation now uses $refs: resolve them as azure-openapi.ts does');
  return op;
}

/** OpenAPI 3.0 schema object → JSON Schema: `example` dropped, `nullable: true` → a `null` type. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!isNode(node)) return node;
  const out: Node = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example' || k === 'nullable') continue;
    out[k] =
      k === 'properties' && isNode(v)
        ? Object.fromEntries(Object.entries(v).map(([name, s]) => [name, toJsonSchema(s)]))
        : toJsonSchema(v);
  }
  if (node.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

let request: ValidateFunction | undefined;

/** The request body of POST /deployments/{deployment-id}/embeddings (also what `/v1/embeddings` takes). */
export function embeddingsRequestSchema(): ValidateFunction {
  if (request) return request;
  const schema = embeddingsOperation().request.schema;
  request = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(toJsonSchema(schema) as Node);
  return request;
}

/** What the document says the 200 body is: the spec bug this file works around, kept visible for a test. */
export function declaredEmbeddingsAnswer(): unknown {
  return embeddingsOperation().responses['200']?.schema;
}

/** The 200 answer, from the example of the wire-facts page (`pageExamples.embeddingsAnswer`). */
export const embeddingsResponseSchema = z.strictObject({
  object: z.literal('list'),
  model: z.string().min(1),
  data: z
    .array(
      z.strictObject({ index: z.int().min(0), object: z.literal('embedding'), embedding: z.array(z.number()).min(1) }),
    )
    .min(1),
  usage: z.strictObject({ prompt_tokens: z.int().min(0), total_tokens: z.int().min(0) }),
});
