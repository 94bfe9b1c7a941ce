/**
 * The chat wire contracts of the four chat APIs as zod schemas, written from the vendors' references and SDKs (see
 * docs/protocols/chat.md for where each fact comes from), never from our own code, so tests check both what the
 * client sends and what the local server answers against them.
 *
 * Requests are strict: a field the service does not document, or a value outside its documented range, fails.
 * Answers name the fields the CLI and the vendors' SDKs read and allow the extra ones services add.
 */
import { z } from 'zod';

const role = z.enum(['system', 'user', 'assistant']);
const message = z.looseObject({ role, content: z.string() });

// ---- watsonx.ai: @ibm-cloud/watsonx-ai 1.7.16 textChat / deploymentsTextChat (body fields as the SDK builds them) ----

/** The sampling fields both watsonx chat routes take (`TextChatParameters`). */
const watsonxChatParameters = {
  tools: z.array(z.unknown()).optional(),
  tool_choice_option: z.enum(['none', 'auto', 'required']).optional(),
  tool_choice: z.unknown().optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
  logit_bias: z.record(z.string(), z.number()).optional(),
  logprobs: z.boolean().optional(),
  top_logprobs: z.int().min(0).optional(),
  max_tokens: z.int().min(0).optional(),
  max_completion_tokens: z.int().min(0).optional(),
  n: z.int().min(1).optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  response_format: z.looseObject({ type: z.string() }).optional(),
  seed: z.int().optional(),
  stop: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  time_limit: z.int().gt(0).optional(),
  repetition_penalty: z.number().optional(),
  length_penalty: z.number().optional(),
  include_reasoning: z.boolean().optional(),
  reasoning_effort: z.enum(['low', 'medium', 'high']).optional(),
};

/** `POST /ml/v1/text/chat[_stream]?version=`: model_id, messages, exactly one of project_id / space_id. */
export const watsonxChatRequestSchema = z
  .strictObject({
    model_id: z.string().min(1),
    messages: z.array(message).min(1),
    project_id: z.string().optional(),
    space_id: z.string().optional(),
    guided_choice: z.array(z.string()).optional(),
    guided_regex: z.string().optional(),
    guided_grammar: z.string().optional(),
    guided_json: z.unknown().optional(),
    ...watsonxChatParameters,
  })
  .refine((b) => (b.project_id === undefined) !== (b.space_id === undefined), {
    message: 'exactly one of project_id and space_id',
  });

/** `POST /ml/v1/deployments/{id_or_name}/text/chat[_stream]?version=`: the deployment holds model and scope. */
export const watsonxDeploymentChatRequestSchema = z.strictObject({
  messages: z.array(message).min(1),
  context: z.string().optional(),
  ...watsonxChatParameters,
});

// ---- OpenAI: openai 6.x ChatCompletionCreateParamsBase (the fields textgen and the compatible servers use) ----

const openAiChatParameters = {
  messages: z.array(message).min(1),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  logit_bias: z.record(z.string(), z.number()).nullable().optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.int().min(0).max(20).nullable().optional(),
  max_tokens: z.int().min(1).nullable().optional(),
  max_completion_tokens: z.int().min(1).nullable().optional(),
  n: z.int().min(1).max(128).nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  response_format: z.looseObject({ type: z.string() }).optional(),
  seed: z.int().nullable().optional(),
  // "Up to 4 sequences where the API will stop generating further tokens."
  stop: z
    .union([z.string(), z.array(z.string()).max(4)])
    .nullable()
    .optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.strictObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  user: z.string().optional(),
  tools: z.array(z.unknown()).optional(),
  tool_choice: z.unknown().optional(),
};

/** `POST /v1/chat/completions`: the model in the body. */
export const openAiChatRequestSchema = z.strictObject({ model: z.string().min(1), ...openAiChatParameters });

/**
 * `POST /openai/deployments/{deployment-id}/chat/completions?api-version=`: the deployment in the path picks the
 * model. A `model` field is allowed and ignored: openai's `AzureOpenAI` client sends one.
 */
export const azureChatRequestSchema = z.strictObject({ model: z.string().optional(), ...openAiChatParameters });

// ---- Aleph Alpha: PhariaInference API reference, "Chat — POST /chat/completions" ----

/**
 * One optional system message first; then user and assistant alternate, starting and ending with a user message.
 * `top_logprobs` at most 20, `max_tokens` and `n` at least 1.
 */
export const alephAlphaChatRequestSchema = z
  .strictObject({
    model: z.string().min(1),
    messages: z.array(z.strictObject({ role, content: z.string() })).min(1),
    frequency_penalty: z.number().min(-2).max(2).optional(),
    logit_bias: z.record(z.string(), z.number()).optional(),
    logprobs: z.boolean().optional(),
    top_logprobs: z.int().min(0).max(20).optional(),
    max_tokens: z.int().min(1).optional(),
    n: z.int().min(1).optional(),
    presence_penalty: z.number().min(-2).max(2).optional(),
    stop: z.union([z.string(), z.array(z.string())]).optional(),
    stream: z.boolean().optional(),
    stream_options: z.strictObject({ include_usage: z.boolean() }).optional(),
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
  })
  .refine((b) => alephAlphaOrderProblem(b.messages) === undefined, {
    message: 'messages break the system/user/assistant order',
  });

/** What is wrong with the order of an Aleph Alpha conversation, or undefined. */
export function alephAlphaOrderProblem(messages: readonly { role: string }[]): string | undefined {
  const rest = messages[0]?.role === 'system' ? messages.slice(1) : messages;
  if (rest.length === 0) return 'no user message';
  for (const [i, m] of rest.entries()) {
    const expected = i % 2 === 0 ? 'user' : 'assistant';
    if (m.role !== expected) return `message ${messages.length - rest.length + i} is ${m.role}, expected ${expected}`;
  }
  if (rest[rest.length - 1]!.role !== 'user') return 'the last message must be a user message';
  return undefined;
}

// ---- answers ----

const logprobEntry = z.looseObject({
  token: z.string(),
  logprob: z.number(),
  top_logprobs: z.array(z.looseObject({ token: z.string(), logprob: z.number() })),
});
const usage = z.looseObject({
  prompt_tokens: z.int().min(0),
  completion_tokens: z.int().min(0),
  total_tokens: z.int().min(0),
});
const finish = z.enum(['stop', 'length', 'content_filter', 'tool_calls', 'time_limit', 'cancelled', 'error']);

/** openai's `ChatCompletion` (Azure and Aleph Alpha answer the same shape). */
export const chatCompletionSchema = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.int(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.int().min(0),
      message: z.looseObject({ role: z.literal('assistant'), content: z.string().nullable() }),
      finish_reason: finish,
      logprobs: z.looseObject({ content: z.array(logprobEntry).nullable() }).nullable(),
    }),
  ),
  usage,
});

/** openai's `ChatCompletionChunk`. */
export const chatCompletionChunkSchema = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.int(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.int().min(0),
      delta: z.looseObject({ role: z.literal('assistant').optional(), content: z.string().nullable().optional() }),
      finish_reason: finish.nullable(),
      logprobs: z
        .looseObject({ content: z.array(logprobEntry).nullable() })
        .nullable()
        .optional(),
    }),
  ),
  usage: usage.nullable().optional(),
});

/** watsonx `TextChatResponse`: `model_id`, `created`, `created_at`, choices with `message`. */
export const watsonxChatResponseSchema = z.looseObject({
  id: z.string(),
  model_id: z.string(),
  created: z.int(),
  created_at: z.string().optional(),
  choices: z.array(
    z.looseObject({
      index: z.int().min(0),
      message: z.looseObject({ role: z.literal('assistant'), content: z.string().optional() }),
      finish_reason: finish,
    }),
  ),
  usage: usage.partial(),
});

/** watsonx `TextChatStreamItem`. */
export const watsonxChatStreamItemSchema = z.looseObject({
  id: z.string(),
  model_id: z.string(),
  created: z.int(),
  choices: z.array(
    z.looseObject({
      index: z.int().min(0),
      delta: z.looseObject({ role: z.string().optional(), content: z.string().optional() }),
      finish_reason: finish.nullable().optional(),
    }),
  ),
  usage: usage.partial().optional(),
});
