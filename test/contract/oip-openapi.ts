/**
 * The Open Inference generate extension's OpenAPI 3.1 document (shared/specs/open-inference-generate.yaml), loaded
 * from disk and compiled with ajv, so tests check requests and answers against the document itself rather than a
 * copy. OpenAPI 3.1 schemas are JSON Schema 2020-12, so no `nullable` translation is needed; the schemas of the
 * operations are `$ref`s into `components`, resolved by registering the whole document under one id.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse } from 'yaml';

export const OIP_SPEC_PATH = resolve(import.meta.dirname, '../../../shared/specs/open-inference-generate.yaml');

const DOC_ID = 'https://textgen.test/open-inference-generate.yaml';
const GENERATE = '/v2/models/{MODEL_NAME}/versions/{MODEL_VERSION}/generate';
const GENERATE_STREAM = '/v2/models/{MODEL_NAME}/versions/{MODEL_VERSION}/generate_stream';
const ERROR_STATUSES = ['422', '424', '429', '500'] as const;

interface MediaType {
  schema: Record<string, unknown>;
}
interface Operation {
  requestBody: { content: Record<string, MediaType> };
  responses: Record<string, { content: Record<string, MediaType> }>;
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, { post: Operation }>;
  components: { schemas: Record<string, unknown> };
}

export interface OipValidators {
  /** Body of POST …/generate and …/generate_stream. */
  generateRequest: ValidateFunction;
  /** 200 answer of …/generate. */
  generateResponse: ValidateFunction;
  /** One `data:` message of a 200 …/generate_stream. */
  streamMessage: ValidateFunction;
  /** Error bodies (422, 424, 429, 500), whole or inside a stream. */
  error: ValidateFunction;
}

let cached: OipValidators | undefined;

export function oipValidators(): OipValidators {
  if (cached) return cached;
  const doc = parse(readFileSync(OIP_SPEC_PATH, 'utf8')) as OpenApiDocument;
  if (!doc.openapi.startsWith('3.1')) throw new Error(`expected an OpenAPI 3.1 document, got ${doc.openapi}`);
  // strict: false because the document's own keys (openapi, info, paths) are not JSON Schema keywords.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('float', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addSchema({ ...doc, $id: DOC_ID });

  const compile = (schema: Record<string, unknown>): ValidateFunction => {
    const ref = schema.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#')) throw new Error(`expected a local $ref, got ${JSON.stringify(schema)}`);
    return ajv.compile({ $ref: `${DOC_ID}${ref}` });
  };
  const plain = doc.paths[GENERATE]!.post;
  const streamed = doc.paths[GENERATE_STREAM]!.post;
  const errorRefs = new Set(
    [plain, streamed].flatMap((op) => ERROR_STATUSES.map((s) => JSON.stringify(Object.values(op.responses[s]!.content)[0]!.schema))),
  );
  if (errorRefs.size !== 1) throw new Error('the error responses of the document no longer share one schema');
  cached = {
    generateRequest: compile(plain.requestBody.content['application/json']!.schema),
    generateResponse: compile(plain.responses['200']!.content['application/json']!.schema),
    streamMessage: compile(streamed.responses['200']!.content['text/event-stream']!.schema),
    error: compile(JSON.parse([...errorRefs][0]!) as Record<string, unknown>),
  };
  if (JSON.stringify(streamed.requestBody.content['application/json']!.schema) !== JSON.stringify(plain.requestBody.content['application/json']!.schema)) {
    throw new Error('generate and generate_stream no longer share one request schema');
  }
  return cached;
}

/** Throws with ajv's messages when `value` does not pass; returns it typed for further checks. */
export function assertValid<T = Record<string, unknown>>(validate: ValidateFunction, value: unknown, label = 'value'): T {
  if (!validate(value)) {
    throw new Error(`${label} does not match the OpenAPI document: ${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`);
  }
  return value as T;
}
