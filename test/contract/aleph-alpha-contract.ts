/**
 * The Aleph Alpha API contract (version 1.16.1): the project's own record of what the tests need from the provider's
 * OpenAPI document — for each schema the tests use, its fields in the document's order with their types, `$ref`s,
 * nullability, enums, formats and ranges, nested objects where the document nests them, the required lists, and the
 * document's examples; for each task endpoint its method, query parameters and the schemas it takes and answers.
 * Prose is left out, except a few words tests rely on (`description`). docs/protocols/aleph-alpha.md describes the
 * protocol in words.
 *
 * The zod schemas in aleph-alpha-schemas.ts, aleph-alpha-task-schemas.ts, embed-schemas.ts and tokenize-schemas.ts are
 * held to this file by the contract tests in test/unit; test/cross-check/specs.test.ts holds this file to the original
 * document wherever that document is available.
 */

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';

/** One field, or the items of an array, as the document declares it. */
export interface FieldFacts {
  type?: FieldType;
  /** `#/components/schemas/<name>`. */
  $ref?: string;
  nullable?: true;
  enum?: readonly (string | number)[];
  format?: string;
  minimum?: number;
  maximum?: number;
  items?: FieldFacts;
  /** Nested objects, in the document's order. */
  properties?: Readonly<Record<string, FieldFacts>>;
  required?: readonly string[];
  oneOf?: readonly FieldFacts[];
  /** Words of the document's description that a test relies on (a quote, not the whole text). */
  description?: string;
}

export interface SchemaFacts extends FieldFacts {
  /** The document's own example, where a test uses it. */
  example?: Readonly<Record<string, unknown>>;
}

const HOSTING = '#/components/schemas/Hosting';
const PROMPT = '#/components/schemas/Prompt';
const DOCUMENT = '#/components/schemas/Document';

const str: FieldFacts = { type: 'string' };
const int: FieldFacts = { type: 'integer' };
const num: FieldFacts = { type: 'number' };
const bool: FieldFacts = { type: 'boolean' };
const strings: FieldFacts = { type: 'array', items: str };
const nullable = <T extends FieldFacts>(f: T): T => ({ ...f, nullable: true });
const ref = (to: string): FieldFacts => ({ $ref: to });

/** The fields embedding requests share after their prompt(s). */
const controls = {
  normalize: bool,
  contextual_control_threshold: nullable(num),
  control_log_additive: bool,
} as const;

const spanScores: FieldFacts = {
  type: 'array',
  items: { type: 'object', properties: { start: int, length: int, score: num } },
};

export const ALEPH_ALPHA_VERSION = '1.16.1';

export const ALEPH_ALPHA_SCHEMAS = {
  CompletionRequest: {
    type: 'object',
    example: { model: 'luminous-base', prompt: 'An apple a day', maximum_tokens: 64 },
    properties: {
      model: str,
      hosting: ref(HOSTING),
      prompt: ref(PROMPT),
      maximum_tokens: int,
      minimum_tokens: int,
      echo: bool,
      temperature: nullable(num),
      top_k: nullable(int),
      top_p: nullable(num),
      presence_penalty: nullable(num),
      frequency_penalty: nullable(num),
      sequence_penalty: num,
      sequence_penalty_min_length: int,
      repetition_penalties_include_prompt: nullable(bool),
      repetition_penalties_include_completion: bool,
      use_multiplicative_presence_penalty: nullable(bool),
      use_multiplicative_frequency_penalty: bool,
      use_multiplicative_sequence_penalty: bool,
      penalty_bias: nullable(str),
      penalty_exceptions: nullable(strings),
      penalty_exceptions_include_stop_sequences: nullable(bool),
      best_of: { type: 'integer', nullable: true, maximum: 100 },
      n: nullable(int),
      logit_bias: nullable({ type: 'object' }),
      log_probs: nullable(int),
      stop_sequences: nullable(strings),
      tokens: nullable(bool),
      raw_completion: bool,
      disable_optimizations: nullable(bool),
      completion_bias_inclusion: strings,
      completion_bias_inclusion_first_token_only: bool,
      completion_bias_exclusion: strings,
      completion_bias_exclusion_first_token_only: bool,
      contextual_control_threshold: nullable(num),
      control_log_additive: bool,
    },
    required: ['model', 'prompt', 'maximum_tokens'],
  },
  CompletionResponse: {
    type: 'object',
    properties: {
      model_version: str,
      completions: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            log_probs: {
              type: 'object',
              nullable: true,
              description: 'list with a dictionary for each generated token',
            },
            completion: str,
            raw_completion: nullable(str),
            completion_tokens: strings,
            finish_reason: nullable(str),
          },
        },
      },
      optimized_prompt: ref('#/components/schemas/OptimizedPrompt'),
      num_tokens_prompt_total: int,
      num_tokens_generated: int,
    },
  },
  EvaluationRequest: {
    type: 'object',
    example: { model: 'luminous-base', prompt: 'An apple a day', completion_expected: 'keeps the doctor away.' },
    properties: {
      model: str,
      hosting: ref(HOSTING),
      prompt: ref(PROMPT),
      completion_expected: str,
      contextual_control_threshold: nullable(num),
      control_log_additive: bool,
    },
    required: ['model', 'prompt', 'completion_expected'],
  },
  EvaluationResponse: {
    type: 'object',
    example: {
      model_version: '2021-12',
      result: {
        log_probability: -1.2281955,
        log_perplexity: 1.2281955,
        log_perplexity_per_token: 0.24563909,
        log_perplexity_per_character: 1.2281955,
        correct_greedy: true,
        token_count: 5,
        character_count: 1,
        completion: ' keeps the doctor away.',
      },
      num_tokens_prompt_total: 9,
    },
    properties: {
      model_version: str,
      result: {
        type: 'object',
        properties: {
          log_probability: nullable(num),
          log_perplexity: nullable(num),
          log_perplexity_per_token: nullable(num),
          log_perplexity_per_character: nullable(num),
          correct_greedy: nullable(bool),
          token_count: nullable(int),
          character_count: nullable(int),
          completion: nullable(str),
        },
      },
      num_tokens_prompt_total: int,
    },
  },
  ExplanationRequest: {
    type: 'object',
    properties: {
      model: str,
      hosting: { type: 'string', nullable: true, enum: ['aleph-alpha'] },
      prompt: ref(PROMPT),
      target: nullable(str),
      control_factor: num,
      contextual_control_threshold: nullable(num),
      control_log_additive: bool,
      postprocessing: { type: 'string', enum: ['none', 'absolute', 'square'] },
      normalize: bool,
      prompt_granularity: {
        type: 'object',
        properties: {
          type: { type: 'string', enum: ['token', 'word', 'sentence', 'paragraph', 'custom'] },
          delimiter: str,
        },
      },
      target_granularity: { type: 'string', enum: ['complete', 'token'] },
      control_token_overlap: { type: 'string', enum: ['partial', 'complete'] },
    },
    required: ['model', 'prompt', 'target'],
  },
  TokenIdsPromptItemImportance: {
    type: 'object',
    properties: { type: { type: 'string', enum: ['token_ids'] }, scores: { type: 'array', items: num } },
  },
  TargetItemImportance: {
    type: 'object',
    properties: { type: { type: 'string', enum: ['target'] }, scores: spanScores },
  },
  TextPromptItemImportance: {
    type: 'object',
    properties: { type: { type: 'string', enum: ['text'] }, scores: spanScores },
  },
  ImagePromptItemImportance: {
    type: 'object',
    properties: {
      type: { type: 'string', enum: ['image'] },
      scores: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            rect: { type: 'object', properties: { top: num, left: num, width: num, height: num } },
            score: num,
          },
        },
      },
    },
  },
  ExplanationResponse: {
    type: 'object',
    properties: {
      model_version: str,
      explanations: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            target: str,
            items: {
              type: 'array',
              items: {
                oneOf: [
                  ref('#/components/schemas/TokenIdsPromptItemImportance'),
                  ref('#/components/schemas/TargetItemImportance'),
                  ref('#/components/schemas/TextPromptItemImportance'),
                  ref('#/components/schemas/ImagePromptItemImportance'),
                ],
              },
            },
          },
        },
      },
    },
  },
  QARequest: {
    type: 'object',
    example: {
      query: 'Who likes Pizza?',
      documents: [{ text: 'Andreas likes Pizza.' }, { docx: 'b64;base64EncodededWordDocument' }],
    },
    properties: {
      hosting: ref(HOSTING),
      query: str,
      documents: { type: 'array', items: ref(DOCUMENT) },
      max_answers: { type: 'integer', minimum: 1, maximum: 200 },
    },
    required: ['query', 'documents'],
  },
  QAResponse: {
    type: 'object',
    example: {
      answers: [{ answer: 'Andreas', score: 0.9980973, evidence: 'Andreas likes Pizza.' }],
      model_version: '2021-12',
    },
    properties: {
      model_version: str,
      answers: {
        type: 'array',
        items: {
          type: 'object',
          properties: { answer: str, score: { type: 'number', format: 'float' }, evidence: str },
          required: ['answer', 'score', 'evidence'],
        },
      },
    },
  },
  SummarizationRequest: {
    type: 'object',
    // The example names a model, which the properties do not have (nor does the API).
    example: {
      model: 'luminous-extended',
      document: { text: "Some people like pizza more than burgers. Other people don't. But we all love food." },
    },
    properties: { hosting: ref(HOSTING), document: ref(DOCUMENT) },
    required: ['document'],
  },
  SummarizationResponse: {
    type: 'object',
    example: { summary: 'All people love food', model_version: '2021-12' },
    properties: { model_version: str, summary: str },
  },
  /** A base64 Word file, a text, or a multimodal prompt. */
  Document: {
    oneOf: [
      { type: 'object', properties: { docx: { type: 'string', format: 'base64' } } },
      { type: 'object', properties: { text: str } },
      { type: 'object', properties: { prompt: ref('#/components/schemas/MultimodalPrompt') } },
    ],
  },
  EmbeddingRequest: {
    type: 'object',
    properties: {
      model: str,
      hosting: ref(HOSTING),
      prompt: ref(PROMPT),
      layers: { type: 'array', items: int },
      tokens: nullable(bool),
      pooling: strings,
      type: nullable(str),
      ...controls,
    },
    required: ['model', 'prompt'],
  },
  EmbeddingResponse: {
    type: 'object',
    properties: {
      model_version: str,
      embeddings: nullable({ type: 'object' }),
      tokens: nullable(strings),
      num_tokens_prompt_total: int,
    },
  },
  SemanticEmbeddingRequest: {
    type: 'object',
    properties: {
      model: str,
      hosting: ref(HOSTING),
      prompt: ref(PROMPT),
      representation: { type: 'string', enum: ['symmetric', 'document', 'query'] },
      compress_to_size: { type: 'integer', enum: [128], nullable: true },
      ...controls,
    },
    required: ['prompt', 'representation'],
  },
  SemanticEmbeddingResponse: {
    type: 'object',
    properties: {
      model_version: str,
      // Declared integers, described as floats (and floats on the wire).
      embedding: { type: 'array', items: int, description: 'A list of floats' },
      num_tokens_prompt_total: int,
    },
  },
  BatchSemanticEmbeddingRequest: {
    type: 'object',
    properties: {
      model: str,
      hosting: ref(HOSTING),
      prompts: { type: 'array', items: ref(PROMPT) },
      representation: { type: 'string', enum: ['symmetric', 'document', 'query'] },
      compress_to_size: { type: 'integer', enum: [128], nullable: true },
      ...controls,
    },
    required: ['prompts', 'representation'],
  },
  BatchSemanticEmbeddingResponse: {
    type: 'object',
    properties: {
      model_version: str,
      embeddings: { type: 'array', items: { type: 'array', items: num } },
      num_tokens_prompt_total: int,
    },
  },
  TokenizationRequest: {
    type: 'object',
    properties: { model: str, prompt: str, tokens: bool, token_ids: bool },
    required: ['model', 'prompt', 'tokens', 'token_ids'],
  },
  TokenizationResponse: {
    type: 'object',
    properties: { tokens: strings, token_ids: { type: 'array', items: int } },
  },
  DetokenizationRequest: {
    type: 'object',
    properties: { model: str, token_ids: { type: 'array', items: int } },
    required: ['model', 'token_ids'],
  },
  DetokenizationResponse: {
    type: 'object',
    properties: { result: str },
  },
} as const satisfies Record<string, SchemaFacts>;

export type AlephAlphaSchemaName = keyof typeof ALEPH_ALPHA_SCHEMAS;

export interface EndpointFacts {
  method: 'post';
  /** Query parameters and their types. */
  query: Readonly<Record<string, FieldType>>;
  request: AlephAlphaSchemaName;
  response: AlephAlphaSchemaName;
}

const nice = { nice: 'boolean' } as const;

/** The POST endpoints the CLI and `serve` speak, at the root of the base URL. */
export const ALEPH_ALPHA_ENDPOINTS = {
  '/complete': { method: 'post', query: nice, request: 'CompletionRequest', response: 'CompletionResponse' },
  '/embed': { method: 'post', query: nice, request: 'EmbeddingRequest', response: 'EmbeddingResponse' },
  '/semantic_embed': {
    method: 'post',
    query: nice,
    request: 'SemanticEmbeddingRequest',
    response: 'SemanticEmbeddingResponse',
  },
  '/batch_semantic_embed': {
    method: 'post',
    query: nice,
    request: 'BatchSemanticEmbeddingRequest',
    response: 'BatchSemanticEmbeddingResponse',
  },
  '/evaluate': { method: 'post', query: nice, request: 'EvaluationRequest', response: 'EvaluationResponse' },
  '/explain': { method: 'post', query: nice, request: 'ExplanationRequest', response: 'ExplanationResponse' },
  '/tokenize': { method: 'post', query: {}, request: 'TokenizationRequest', response: 'TokenizationResponse' },
  '/detokenize': { method: 'post', query: {}, request: 'DetokenizationRequest', response: 'DetokenizationResponse' },
  '/qa': { method: 'post', query: nice, request: 'QARequest', response: 'QAResponse' },
  '/summarize': { method: 'post', query: nice, request: 'SummarizationRequest', response: 'SummarizationResponse' },
} as const satisfies Record<string, EndpointFacts>;

/**
 * Answers as the wire-facts page (docs/protocols/aleph-alpha.md) shows them; the document's own completion example
 * is shorter.
 */
export const ALEPH_ALPHA_PAGE_EXAMPLES = {
  completionResponse: {
    model_version: '2022-04',
    completions: [
      {
        completion: ' keeps the doctor away,',
        finish_reason: 'maximum_tokens',
        log_probs: [{ ' keeps': -0.3 }],
        completion_tokens: [' keeps'],
      },
    ],
    num_tokens_prompt_total: 4,
    num_tokens_generated: 5,
  },
} as const;

// ---- reading the facts -------------------------------------------------------------------------

/** One field as the contract tests compare it: its name and the facts of its declaration. */
export interface ContractProperty {
  name: string;
  type?: string;
  ref?: string;
  nullable: boolean;
  /** Enum values (null left out: `nullable` says it). */
  enum?: string[];
  /** Arrays: the items' type or $ref. */
  items?: string;
  minimum?: number;
  maximum?: number;
}

export function asProperty(name: string, f: FieldFacts): ContractProperty {
  const p: ContractProperty = { name, nullable: f.nullable === true };
  if (f.type !== undefined) p.type = f.type;
  if (f.$ref !== undefined) p.ref = f.$ref;
  const items = f.items?.type ?? f.items?.$ref;
  if (items !== undefined) p.items = items;
  if (f.enum) p.enum = f.enum.map(String);
  if (f.minimum !== undefined) p.minimum = f.minimum;
  if (f.maximum !== undefined) p.maximum = f.maximum;
  return p;
}

/** The fields directly under an object (or under an array's item object). */
export function propertiesOf(f: FieldFacts): ContractProperty[] {
  const holder = f.properties ?? f.items?.properties ?? {};
  return Object.entries(holder).map(([name, facts]) => asProperty(name, facts));
}

/** A nested field: `fieldOf(schema, 'completions', 'log_probs')` walks properties and array items. */
export function fieldOf(f: FieldFacts, ...path: string[]): FieldFacts {
  let at = f;
  for (const name of path) {
    const next = (at.properties ?? at.items?.properties)?.[name];
    if (next === undefined) throw new Error(`no field ${path.join('.')} in the contract`);
    at = next;
  }
  return at;
}

export function requiredOf(f: FieldFacts): string[] {
  return [...(f.required ?? f.items?.required ?? [])];
}
