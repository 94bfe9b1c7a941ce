/**
 * The Azure OpenAI completions and embeddings contract, API version 2022-03-01-preview: the project's own record of
 * what the tests need from the vendor's OpenAPI 3.0 document — each operation's method, path and parameters, the
 * schemas of its bodies (field names, types, nullability, defaults, limits, required lists) and the document's
 * operation examples — plus the two answer examples of the wire-facts page. Prose is left out:
 * docs/protocols/azure-openai.md describes the protocol in words.
 *
 * Schemas are OpenAPI 3.0 schema objects, as the document writes them (`nullable`, `$ref` into `schemas`);
 * azure-openapi.ts turns them into JSON Schema for ajv. test/cross-check/specs.test.ts holds this file to the
 * original document wherever that document is available.
 */

/** An OpenAPI 3.0 schema object. */
export type OpenApiSchema = { readonly [keyword: string]: unknown };

export interface AzureParameter {
  in: 'path' | 'query';
  name: string;
  required: boolean;
  type: string;
}

export interface AzureAnswer {
  contentType: string;
  schema: OpenApiSchema;
  example?: unknown;
  /** Response headers the document names. */
  headers?: string[];
}

export interface AzureOperation {
  method: 'post';
  /** Relative to the server URL. */
  path: string;
  parameters: AzureParameter[];
  request: { contentType: string; required: boolean; schema: OpenApiSchema; example?: unknown };
  /** By status, or `default` for every other one. */
  responses: Record<string, AzureAnswer>;
}

export interface AzureContract {
  apiVersion: string;
  server: string;
  /** The header that carries the key (the other scheme is an Entra ID bearer token). */
  apiKeyHeader: string;
  operations: { completions: AzureOperation; embeddings: AzureOperation };
  /** Schemas the operations `$ref` (`#/components/schemas/<name>`). */
  schemas: Record<string, OpenApiSchema>;
  /** Answers as the wire-facts page shows them (fields the OpenAPI document lacks, such as `usage`, included). */
  pageExamples: { completionAnswer: unknown; embeddingsAnswer: unknown };
}

export const AZURE_OPENAI_CONTRACT: AzureContract = {
  apiVersion: '2022-03-01-preview',
  server: 'https://{endpoint}/openai',
  apiKeyHeader: 'api-key',
  operations: {
    completions: {
      method: 'post',
      path: '/deployments/{deployment-id}/completions',
      parameters: [
        { in: 'path', name: 'deployment-id', required: true, type: 'string' },
        { in: 'query', name: 'api-version', required: true, type: 'string' },
      ],
      request: {
        contentType: 'application/json',
        required: true,
        schema: {
          type: 'object',
          properties: {
            prompt: {
              oneOf: [
                { type: 'string', default: '', nullable: true },
                { type: 'array', items: { type: 'string', default: '', nullable: false } },
                { type: 'array', items: { type: 'integer', nullable: false } },
                { type: 'array', items: { type: 'array', items: { type: 'integer', nullable: false } } },
              ],
            },
            max_tokens: { type: 'integer', default: 16, nullable: true },
            temperature: { type: 'number', default: 1, nullable: true },
            top_p: { type: 'number', default: 1, nullable: true },
            logit_bias: { type: 'object', nullable: false },
            user: { type: 'string', nullable: false },
            n: { type: 'integer', default: 1, nullable: true },
            stream: { type: 'boolean', nullable: true, default: false },
            logprobs: { type: 'integer', default: null, nullable: true },
            model: { type: 'string', nullable: true },
            echo: { type: 'boolean', default: false, nullable: true },
            stop: {
              oneOf: [
                { type: 'string', default: '<|endoftext|>', nullable: true },
                { type: 'array', items: { type: 'string', nullable: false } },
              ],
            },
            completion_config: { type: 'string', nullable: true },
            cache_level: { type: 'integer', nullable: true },
            presence_penalty: { type: 'number', default: 0 },
            frequency_penalty: { type: 'number', default: 0 },
            best_of: { type: 'integer' },
          },
        },
        example: {
          prompt: 'Negate the following sentence.The price for bubblegum increased on thursday.\n\n Negated Sentence:',
          max_tokens: 50,
        },
      },
      responses: {
        '200': {
          contentType: 'application/json',
          schema: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              object: { type: 'string' },
              created: { type: 'integer' },
              model: { type: 'string' },
              choices: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    text: { type: 'string' },
                    index: { type: 'integer' },
                    logprobs: {
                      type: 'object',
                      properties: {
                        tokens: { type: 'array', items: { type: 'string' } },
                        token_logprobs: { type: 'array', items: { type: 'number' } },
                        top_logprobs: {
                          type: 'array',
                          items: { type: 'object', additionalProperties: { type: 'number' } },
                        },
                        text_offset: { type: 'array', items: { type: 'integer' } },
                      },
                    },
                    finish_reason: { type: 'string' },
                  },
                },
              },
            },
          },
          example: {
            model: 'davinci',
            object: 'text_completion',
            id: 'cmpl-4509KAos68kxOqpE2uYGw81j6m7uo',
            created: 1637097562,
            choices: [
              {
                index: 0,
                text: 'The price for bubblegum decreased on thursday.',
                logprobs: null,
                finish_reason: 'stop',
              },
            ],
          },
          headers: ['apim-request-id'],
        },
        default: {
          contentType: 'application/json',
          schema: { $ref: '#/components/schemas/errorResponse' },
          headers: ['apim-request-id'],
        },
      },
    },
    embeddings: {
      method: 'post',
      path: '/deployments/{deployment-id}/embeddings',
      parameters: [{ in: 'path', name: 'deployment-id', required: true, type: 'string' }],
      request: {
        contentType: 'application/json',
        required: true,
        schema: {
          type: 'object',
          additionalProperties: true,
          properties: {
            input: {
              oneOf: [
                { type: 'string', default: '', nullable: true },
                {
                  type: 'array',
                  minItems: 1,
                  maxItems: 2048,
                  items: { type: 'string', minLength: 1, nullable: false },
                },
                { type: 'array', minItems: 1, items: { type: 'integer', nullable: false } },
                {
                  type: 'array',
                  minItems: 1,
                  maxItems: 2048,
                  items: { type: 'array', minItems: 1, items: { type: 'integer', nullable: false } },
                },
              ],
            },
            user: { type: 'string', nullable: false },
            input_type: { type: 'string' },
            model: { type: 'string', nullable: false },
          },
          required: ['input'],
        },
      },
      responses: { '200': { contentType: 'application/json', schema: { type: 'string' } } },
    },
  },
  schemas: {
    errorResponse: {
      type: 'object',
      properties: {
        error: {
          type: 'object',
          properties: {
            code: { type: 'string' },
            message: { type: 'string' },
            param: { type: 'string' },
            type: { type: 'string' },
          },
        },
      },
    },
  },
  pageExamples: {
    completionAnswer: {
      id: 'cmpl-4509KAos68kxOqpE2uYGw81j6m7uo',
      object: 'text_completion',
      created: 1637097562,
      model: 'davinci',
      choices: [
        { text: 'The price for bubblegum decreased on thursday.', index: 0, logprobs: null, finish_reason: 'stop' },
      ],
      usage: { completion_tokens: 20, prompt_tokens: 6, total_tokens: 26 },
    },
    embeddingsAnswer: {
      object: 'list',
      model: 'text-embedding-ada-002',
      data: [{ index: 0, object: 'embedding', embedding: [-0.0128, -0.0074] }],
      usage: { prompt_tokens: 4, total_tokens: 4 },
    },
  },
};
