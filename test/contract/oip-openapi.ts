/**
 * The Open Inference generate extension's contract (open-inference-contract.ts, the project's record of the
 * protocol's OpenAPI 3.1 document) compiled with ajv, so tests check requests and answers against the documented
 * schemas. OpenAPI 3.1 schemas are JSON Schema 2020-12, so no `nullable` translation is needed; the operations name
 * schemas of `components`, resolved by registering the schemas under one document id.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { OPEN_INFERENCE_CONTRACT, type OipOperation } from './open-inference-contract.js';

const DOC_ID = 'https://textgen.test/open-inference-generate.yaml';
const ERROR_STATUSES = ['422', '424', '429', '500'] as const;

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

function answer(op: OipOperation, status: string): string {
  const a = op.responses[status];
  if (!a) throw new Error(`${op.path} documents no ${status} answer`);
  return a.schema;
}

export function oipValidators(): OipValidators {
  if (cached) return cached;
  const contract = OPEN_INFERENCE_CONTRACT;
  if (!contract.openapi.startsWith('3.1')) throw new Error(`expected an OpenAPI 3.1 document, got ${contract.openapi}`);
  // strict: false because the document wrapper's key (components) is not a JSON Schema keyword.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('float', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addSchema({ $id: DOC_ID, components: { schemas: contract.schemas } });

  const compile = (name: string): ValidateFunction => {
    if (!(name in contract.schemas)) throw new Error(`no schema ${name} in the contract`);
    return ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` });
  };
  const { generate: plain, generateStream: streamed } = contract.operations;
  const errorSchemas = new Set([plain, streamed].flatMap((op) => ERROR_STATUSES.map((s) => answer(op, s))));
  if (errorSchemas.size !== 1) throw new Error('the error responses of the contract no longer share one schema');
  if (streamed.request.schema !== plain.request.schema)
    throw new Error('generate and generate_stream no longer share one request schema');
  cached = {
    generateRequest: compile(plain.request.schema),
    generateResponse: compile(answer(plain, '200')),
    streamMessage: compile(answer(streamed, '200')),
    error: compile([...errorSchemas][0]!),
  };
  return cached;
}

/** Throws with ajv's messages when `value` does not pass; returns it typed for further checks. */
export function assertValid<T = Record<string, unknown>>(
  validate: ValidateFunction,
  value: unknown,
  label = 'value',
): T {
  if (!validate(value)) {
    throw new Error(
      `${label} does not match the OpenAPI document: ${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`,
    );
  }
  return value as T;
}
