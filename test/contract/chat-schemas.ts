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
const plainMessage = z.looseObject({ role, content: z.string() });

// ---- tools, shared by the four APIs ([O] `ChatCompletionFunctionTool`, `ChatCompletionMessageToolCall`,
// `ChatCompletionToolMessageParam`, `ChatCompletionAssistantMessageParam`; [W] `TextChatParameterTools`,
// `TextChatToolCall`, `TextChatMessageTool`, `TextChatMessageAssistant`) ----

/** OpenAI's rule for function names, which the others share. */
const functionName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/);
const toolCall = z.strictObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.strictObject({ name: functionName, arguments: z.string() }),
});
/** An assistant turn that called tools: `content` optional (both SDKs) and `tool_calls`. */
const callingMessage = z.strictObject({
  role: z.literal('assistant'),
  content: z.string().nullable().optional(),
  tool_calls: z.array(toolCall).min(1),
});
const toolMessage = z.strictObject({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: z.string() });
const message = z.union([callingMessage, toolMessage, plainMessage]);

/** `parameters` is a JSON Schema object; [W] has no `strict` on a function. */
const watsonxTool = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: functionName,
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
const openAiTool = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({
    name: functionName,
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});
/** [O] `ChatCompletionToolChoiceOption` (the forms textgen sends); [W] `TextChatToolChoiceTool` is the object. */
const namedToolChoice = z.strictObject({
  type: z.literal('function'),
  function: z.strictObject({ name: functionName }),
});
const openAiToolChoice = z.union([z.enum(['none', 'auto', 'required']), namedToolChoice]);
/** [O] `ResponseFormatText` / `ResponseFormatJSONObject` / `ResponseFormatJSONSchema`. */
const responseFormat = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text') }),
  z.strictObject({ type: z.literal('json_object') }),
  z.strictObject({
    type: z.literal('json_schema'),
    json_schema: z.strictObject({
      name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

/** Every tool result answers a call of the assistant turn before it. */
export function toolResultProblem(messages: readonly unknown[]): string | undefined {
  let calls = new Set<string>();
  for (const [i, m] of messages.entries()) {
    const r = m as { role?: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string };
    if (r.role === 'assistant') calls = new Set((r.tool_calls ?? []).map((c) => c.id));
    else if (r.role === 'tool' && !calls.has(r.tool_call_id ?? '')) return `message ${i} answers no call`;
  }
  return undefined;
}

// ---- watsonx.ai: @ibm-cloud/watsonx-ai 1.7.16 textChat / deploymentsTextChat (body fields as the SDK builds them) ----

/** The sampling fields both watsonx chat routes take (`TextChatParameters`). */
const watsonxChatParameters = {
  tools: z.array(watsonxTool).optional(),
  tool_choice_option: z.enum(['none', 'auto', 'required']).optional(),
  tool_choice: namedToolChoice.optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
  logit_bias: z.record(z.string(), z.number()).optional(),
  logprobs: z.boolean().optional(),
  top_logprobs: z.int().min(0).optional(),
  max_tokens: z.int().min(0).optional(),
  max_completion_tokens: z.int().min(0).optional(),
  n: z.int().min(1).optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  // [W] `TextChatResponseFormat` declares `type` (json_object) only; the service takes OpenAI's json_schema form.
  response_format: responseFormat.optional(),
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
  })
  .refine((b) => b.tool_choice_option === undefined || b.tool_choice === undefined, {
    message: 'only one of tool_choice_option and tool_choice',
  })
  .refine((b) => toolResultProblem(b.messages) === undefined, { message: 'a tool result answers no call' });

/** `POST /ml/v1/deployments/{id_or_name}/text/chat[_stream]?version=`: the deployment holds model and scope. */
export const watsonxDeploymentChatRequestSchema = z
  .strictObject({
    messages: z.array(message).min(1),
    context: z.string().optional(),
    ...watsonxChatParameters,
  })
  .refine((b) => b.tool_choice_option === undefined || b.tool_choice === undefined, {
    message: 'only one of tool_choice_option and tool_choice',
  })
  .refine((b) => toolResultProblem(b.messages) === undefined, { message: 'a tool result answers no call' });

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
  response_format: responseFormat.optional(),
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
  tools: z.array(openAiTool).optional(),
  tool_choice: openAiToolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
};

/** `POST /v1/chat/completions`: the model in the body. */
export const openAiChatRequestSchema = z
  .strictObject({ model: z.string().min(1), ...openAiChatParameters })
  .refine((b) => toolResultProblem(b.messages) === undefined, { message: 'a tool result answers no call' });

/**
 * `POST /openai/deployments/{deployment-id}/chat/completions?api-version=`: the deployment in the path picks the
 * model. A `model` field is allowed and ignored: openai's `AzureOpenAI` client sends one.
 */
export const azureChatRequestSchema = z
  .strictObject({ model: z.string().optional(), ...openAiChatParameters })
  .refine((b) => toolResultProblem(b.messages) === undefined, { message: 'a tool result answers no call' });

// ---- Aleph Alpha: PhariaInference API reference, "Chat — POST /chat/completions" ----

/**
 * One optional system message first; then user and assistant alternate, starting and ending with a user message.
 * `top_logprobs` at most 20, `max_tokens` and `n` at least 1.
 */
export const alephAlphaChatRequestSchema = z
  .strictObject({
    model: z.string().min(1),
    messages: z.array(z.union([callingMessage, toolMessage, z.strictObject({ role, content: z.string() })])).min(1),
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
    // [P] takes OpenAI's function tools, tool choice and response formats; no parallel_tool_calls.
    tools: z.array(openAiTool).optional(),
    tool_choice: openAiToolChoice.optional(),
    response_format: responseFormat.optional(),
  })
  .refine((b) => toolResultProblem(b.messages) === undefined, { message: 'a tool result answers no call' })
  .refine((b) => alephAlphaOrderProblem(b.messages) === undefined, {
    message: 'messages break the system/user/assistant order',
  });

/**
 * What is wrong with the order of an Aleph Alpha conversation, or undefined. The tool results after an assistant
 * turn that called tools stand where the next user message would (a run of them counts once), so a conversation
 * may end with them.
 */
export function alephAlphaOrderProblem(messages: readonly { role: string }[]): string | undefined {
  const turns: string[] = [];
  for (const m of messages) {
    if (m.role === 'tool' && turns.at(-1) === 'tool') continue;
    turns.push(m.role);
  }
  const rest = turns[0] === 'system' ? turns.slice(1) : turns;
  if (rest.length === 0) return 'no user message';
  for (const [i, r] of rest.entries()) {
    const expected = i % 2 === 0 ? 'user' : 'assistant';
    const role = r === 'tool' ? 'user' : r;
    if (role !== expected) return `turn ${turns.length - rest.length + i} is ${r}, expected ${expected}`;
  }
  const last = rest[rest.length - 1]!;
  if (last !== 'user' && last !== 'tool') return 'the last message must be a user message (or tool results)';
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
