/**
 * The Open Inference Protocol generate extension contract: the project's own record of what the tests need from the
 * protocol's OpenAPI 3.1 document — the two operations (method, path, parameters, the schema of the request and of
 * each answer by status, the error examples) and the component schemas with their fields, types, enums, ranges and
 * required lists. Prose is left out: docs/protocols/open-inference.md describes the protocol in words.
 *
 * OpenAPI 3.1 schemas are JSON Schema 2020-12, so oip-openapi.ts compiles `schemas` with ajv as they are.
 * test/cross-check/specs.test.ts holds this file to the original document wherever that document is available.
 */

/** A JSON Schema 2020-12 object, `$ref`s pointing at `#/components/schemas/<name>`. */
export type JsonSchema = { readonly [keyword: string]: unknown };

export interface OipAnswer {
  contentType: 'application/json' | 'text/event-stream';
  /** The name of a schema in `schemas`. */
  schema: string;
  example?: unknown;
}

export interface OipOperation {
  method: 'post';
  path: string;
  parameters: Array<{ in: 'path'; name: string; required: boolean; type: string }>;
  request: { contentType: 'application/json'; schema: string };
  /** By HTTP status. */
  responses: Record<string, OipAnswer>;
}

export interface OpenInferenceContract {
  openapi: string;
  operations: { generate: OipOperation; generateStream: OipOperation };
  schemas: Record<string, JsonSchema>;
}

export const OPEN_INFERENCE_CONTRACT: OpenInferenceContract = {
  openapi: '3.1.0',
  operations: {
    generate: {
      method: 'post',
      path: '/v2/models/{MODEL_NAME}/versions/{MODEL_VERSION}/generate',
      parameters: [
        { in: 'path', name: 'MODEL_NAME', required: true, type: 'string' },
        { in: 'path', name: 'MODEL_VERSION', required: true, type: 'string' },
      ],
      request: { contentType: 'application/json', schema: 'GenerateRequest' },
      responses: {
        '200': { contentType: 'application/json', schema: 'GenerateResponse' },
        '422': {
          contentType: 'application/json',
          schema: 'GenerateErrorResponse',
          example: { error: 'Input validation error' },
        },
        '424': {
          contentType: 'application/json',
          schema: 'GenerateErrorResponse',
          example: { error: 'Request failed during generation' },
        },
        '429': {
          contentType: 'application/json',
          schema: 'GenerateErrorResponse',
          example: { error: 'Model is overloaded' },
        },
        '500': {
          contentType: 'application/json',
          schema: 'GenerateErrorResponse',
          example: { error: 'Incomplete generation' },
        },
      },
    },
    generateStream: {
      method: 'post',
      path: '/v2/models/{MODEL_NAME}/versions/{MODEL_VERSION}/generate_stream',
      parameters: [
        { in: 'path', name: 'MODEL_NAME', required: true, type: 'string' },
        { in: 'path', name: 'MODEL_VERSION', required: true, type: 'string' },
      ],
      request: { contentType: 'application/json', schema: 'GenerateRequest' },
      responses: {
        '200': { contentType: 'text/event-stream', schema: 'GenerateStreamResponse' },
        '422': {
          contentType: 'text/event-stream',
          schema: 'GenerateErrorResponse',
          example: { error: 'Input validation error' },
        },
        '424': {
          contentType: 'text/event-stream',
          schema: 'GenerateErrorResponse',
          example: { error: 'Request failed during generation' },
        },
        '429': {
          contentType: 'text/event-stream',
          schema: 'GenerateErrorResponse',
          example: { error: 'Model is overloaded' },
        },
        '500': {
          contentType: 'text/event-stream',
          schema: 'GenerateErrorResponse',
          example: { error: 'Incomplete generation' },
        },
      },
    },
  },
  schemas: {
    Details: {
      type: 'object',
      required: ['finish_reason', 'logprobs'],
      additionalProperties: {},
      properties: {
        finish_reason: { $ref: '#/components/schemas/Finish_Reason' },
        logprobs: { $ref: '#/components/schemas/Logprobs' },
      },
    },
    Finish_Reason: { type: 'string', enum: ['length', 'eos_token', 'stop_sequence'] },
    GenerateErrorResponse: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
    GenerateParameters: {
      type: 'object',
      additionalProperties: {},
      properties: {
        temperature: { type: 'number', format: 'float', default: 1, minimum: 0 },
        top_p: { type: 'number', format: 'float', maximum: 1, minimum: 0 },
        max_tokens: { type: 'integer', format: 'int32', default: 20, minimum: 1 },
        stop: { type: 'array', items: { type: 'string' } },
        details: { type: 'boolean' },
      },
    },
    GenerateRequest: {
      type: 'object',
      required: ['text_input'],
      properties: {
        text_input: { type: 'string' },
        parameters: { allOf: [{ $ref: '#/components/schemas/GenerateParameters' }] },
      },
    },
    GenerateResponse: {
      type: 'object',
      required: ['text_output', 'model_name'],
      properties: {
        text_output: { type: 'string' },
        model_name: { type: 'string' },
        model_version: { type: 'string' },
        details: { $ref: '#/components/schemas/Details' },
      },
    },
    GenerateStreamResponse: {
      type: 'object',
      required: ['text_output', 'model_name'],
      properties: {
        text_output: { type: 'string' },
        model_name: { type: 'string' },
        model_version: { type: 'string' },
        details: { $ref: '#/components/schemas/StreamDetails' },
      },
    },
    Logprobs: { type: 'array', items: { $ref: '#/components/schemas/Token' } },
    StreamDetails: {
      type: 'object',
      required: ['finish_reason', 'token'],
      additionalProperties: {},
      properties: {
        finish_reason: { $ref: '#/components/schemas/Finish_Reason' },
        token: { $ref: '#/components/schemas/Token' },
      },
    },
    Token: {
      type: 'object',
      required: ['id', 'text', 'logprob', 'special'],
      properties: {
        id: { type: 'integer', format: 'int32', minimum: 0 },
        logprob: { type: 'number', format: 'float' },
        special: { type: 'boolean' },
        text: { type: 'string' },
      },
    },
  },
};
