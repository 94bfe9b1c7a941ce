/**
 * The Azure OpenAI completions contract (azure-openai-contract.ts, the project's record of the vendor's OpenAPI 3.0
 * document) compiled with ajv. OpenAPI 3.0 is not quite JSON Schema, so the loader resolves `$ref`s, turns
 * `nullable: true` into `type: [T, "null"]` and drops the OpenAPI-only `example` keyword.
 *
 * One documented deviation: the wire-facts page (docs/protocols/azure-openai.md) says real servers send
 * `"logprobs": null` where the document says object, and that logprob entries may be null (the first echoed token);
 * its stream example has `"finish_reason": null`. The response schema therefore marks exactly those four nodes
 * nullable before the translation — the local server sends nulls there, as the services do, rather than leaving the
 * fields out.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { AZURE_OPENAI_CONTRACT, type AzureOperation } from './azure-openai-contract.js';

type Node = Record<string, unknown>;

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What the contract's `$ref`s point into. */
const refRoot: Node = { components: { schemas: AZURE_OPENAI_CONTRACT.schemas } };

function pointer(doc: Node, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported, got ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (isNode(node) ? node[key] : undefined), doc);
}

/** A deep copy with every `$ref` replaced by what it points to. */
function resolveRefs(node: unknown, doc: Node, depth = 0): unknown {
  if (depth > 50) throw new Error('$ref nesting too deep (a cycle?)');
  if (Array.isArray(node)) return node.map((n) => resolveRefs(n, doc, depth + 1));
  if (!isNode(node)) return node;
  if (typeof node.$ref === 'string') return resolveRefs(pointer(doc, node.$ref), doc, depth + 1);
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolveRefs(v, doc, depth + 1)]));
}

/** OpenAPI 3.0 schema object → JSON Schema (draft 7, what ajv's default build speaks). */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!isNode(node)) return node;
  const out: Node = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example' || k === 'nullable') continue;
    // Map keys under `properties` are field names, not keywords: translate their values only.
    out[k] =
      k === 'properties' && isNode(v)
        ? Object.fromEntries(Object.entries(v).map(([name, s]) => [name, toJsonSchema(s)]))
        : toJsonSchema(v);
  }
  if (node.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

/** A deep copy of one body schema with its `$ref`s resolved; the request or answer must be JSON. */
function bodySchema(op: AzureOperation, status: string | undefined): Node {
  const body = status === undefined ? op.request : op.responses[status];
  if (body?.contentType !== 'application/json')
    throw new Error(`no application/json body for ${op.path} ${status ?? 'request'}`);
  return resolveRefs(body.schema, refRoot) as Node;
}

/** Marks the nodes docs/protocols/azure-openai.md documents as null on the wire (see the top of this file). */
function withDocumentedNulls(schema: Node): Node {
  const choice = ((schema.properties as Node).choices as Node).items as Node;
  const fields = choice.properties as Node;
  const logprobs = fields.logprobs as Node;
  logprobs.nullable = true;
  (fields.finish_reason as Node).nullable = true;
  const lp = logprobs.properties as Node;
  ((lp.token_logprobs as Node).items as Node).nullable = true;
  ((lp.top_logprobs as Node).items as Node).nullable = true;
  return schema;
}

function compile(schema: unknown): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  return ajv.compile(toJsonSchema(schema) as Node);
}

let request: ValidateFunction | undefined;
let response: ValidateFunction | undefined;
let error: ValidateFunction | undefined;

/** The request body of POST /deployments/{deployment-id}/completions. */
export function completionsRequestSchema(): ValidateFunction {
  request ??= compile(bodySchema(AZURE_OPENAI_CONTRACT.operations.completions, undefined));
  return request;
}

/** The 200 body (and each streamed message, which is the same `text_completion` object). */
export function completionsResponseSchema(): ValidateFunction {
  response ??= compile(withDocumentedNulls(bodySchema(AZURE_OPENAI_CONTRACT.operations.completions, '200')));
  return response;
}

/** The `default` (error) answer: `errorResponse`. */
export function completionsErrorSchema(): ValidateFunction {
  error ??= compile(bodySchema(AZURE_OPENAI_CONTRACT.operations.completions, 'default'));
  return error;
}

/** '' when valid, else ajv's errors in one line (for expect messages). */
export function schemaErrors(validate: ValidateFunction, value: unknown): string {
  return validate(value) ? '' : JSON.stringify(validate.errors);
}
