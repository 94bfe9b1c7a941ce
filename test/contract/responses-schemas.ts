/**
 * OpenAI's Responses API (`POST /v1/responses`, and Azure's `/openai/v1/responses`) as zod schemas, written from
 * openai 6.30's typings (node_modules/openai/resources/responses/responses.d.ts: ResponseCreateParams,
 * ResponseInputItem, FunctionTool, ResponseTextConfig, Response, ResponseStreamEvent), never from our own code,
 * so tests check both what clients send and what `serve` answers against them.
 *
 * The request is strict at the top (a field ResponseCreateParams does not have fails) and in the shapes textgen
 * and the SDKs send (messages, input parts, function calls and their outputs, function tools, text formats).
 */
import { z } from 'zod';

const n = <T extends z.ZodType>(s: T) => s.nullable().optional();

const inputText = z.strictObject({ type: z.literal('input_text'), text: z.string() });
const outputTextPart = z.looseObject({ type: z.literal('output_text'), text: z.string() });
const contentPart = z.union([
  inputText,
  outputTextPart,
  z.looseObject({ type: z.enum(['input_image', 'input_file', 'input_audio', 'refusal']) }),
]);

/** EasyInputMessage and ResponseInputItem.Message (type optional / 'message'). */
const message = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPart)]),
  id: z.string().optional(),
  status: z.string().optional(),
});
const functionCall = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  id: z.string().optional(),
});
const functionCallOutput = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string(),
  output: z.union([z.string(), z.array(contentPart)]),
});
const itemReference = z.strictObject({ type: z.literal('item_reference').optional(), id: z.string() });
const reasoning = z.looseObject({ type: z.literal('reasoning'), id: z.string() });

export const responsesInputItemSchema = z.union([message, functionCall, functionCallOutput, itemReference, reasoning]);

/** FunctionTool: the flat shape, not chat completions' `{type, function: {…}}`. */
export const responsesFunctionToolSchema = z.strictObject({
  type: z.literal('function'),
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  description: n(z.string()),
  parameters: n(z.record(z.string(), z.unknown())),
  strict: n(z.boolean()),
});

const textFormat = z.union([
  z.strictObject({ type: z.literal('text') }),
  z.strictObject({ type: z.literal('json_object') }),
  z.strictObject({
    type: z.literal('json_schema'),
    name: z.string().min(1),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().optional(),
    strict: n(z.boolean()),
  }),
]);

export const responsesRequestSchema = z.strictObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(responsesInputItemSchema)]).optional(),
  instructions: n(z.string()),
  max_output_tokens: n(z.int().min(16)),
  temperature: n(z.number().min(0).max(2)),
  top_p: n(z.number().min(0).max(1)),
  previous_response_id: n(z.string()),
  store: n(z.boolean()),
  stream: n(z.boolean()),
  stream_options: n(z.strictObject({ include_obfuscation: z.boolean().optional() })),
  tools: z.array(responsesFunctionToolSchema).optional(),
  tool_choice: z
    .union([z.enum(['none', 'auto', 'required']), z.strictObject({ type: z.literal('function'), name: z.string() })])
    .optional(),
  text: z.strictObject({ format: textFormat.optional(), verbosity: n(z.enum(['low', 'medium', 'high'])) }).optional(),
  parallel_tool_calls: n(z.boolean()),
  metadata: n(z.record(z.string(), z.string())),
  user: z.string().optional(),
  include: n(z.array(z.string())),
  truncation: n(z.enum(['auto', 'disabled'])),
  top_logprobs: n(z.int().min(0).max(20)),
  max_tool_calls: n(z.int().min(1)),
  reasoning: n(z.looseObject({})),
  service_tier: n(z.enum(['auto', 'default', 'flex', 'scale', 'priority'])),
  safety_identifier: z.string().optional(),
  prompt_cache_key: z.string().optional(),
  prompt_cache_retention: n(z.enum(['in-memory', '24h'])),
  background: n(z.boolean()),
  conversation: n(z.unknown()),
  context_management: n(z.array(z.unknown())),
  prompt: n(z.unknown()),
});

const usage = z.looseObject({
  input_tokens: z.int().min(0),
  input_tokens_details: z.looseObject({ cached_tokens: z.int().min(0) }),
  output_tokens: z.int().min(0),
  output_tokens_details: z.looseObject({ reasoning_tokens: z.int().min(0) }),
  total_tokens: z.int().min(0),
});

const outputMessage = z.looseObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  status: z.enum(['in_progress', 'completed', 'incomplete']),
  content: z.array(
    z.looseObject({ type: z.literal('output_text'), text: z.string(), annotations: z.array(z.unknown()) }),
  ),
});
const outputCall = z.looseObject({
  id: z.string(),
  type: z.literal('function_call'),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  status: z.enum(['in_progress', 'completed', 'incomplete']),
});
export const responsesOutputItemSchema = z.union([outputMessage, outputCall]);

/** The Response object's fields the SDKs read, required as openai's `Response` has them. */
export const responseObjectSchema = z.looseObject({
  id: z.string().startsWith('resp_'),
  object: z.literal('response'),
  created_at: z.number(),
  status: z.enum(['completed', 'incomplete', 'in_progress', 'failed', 'cancelled', 'queued']),
  error: z.null(),
  incomplete_details: z.union([z.null(), z.strictObject({ reason: z.enum(['max_output_tokens', 'content_filter']) })]),
  instructions: z.union([z.string(), z.null(), z.array(z.unknown())]),
  model: z.string(),
  output: z.array(responsesOutputItemSchema),
  parallel_tool_calls: z.boolean(),
  temperature: z.number().nullable(),
  tool_choice: z.unknown(),
  tools: z.array(z.unknown()),
  top_p: z.number().nullable(),
  metadata: z.record(z.string(), z.string()).nullable(),
  usage: z.union([usage, z.null()]).optional(),
});

/** Each event: its type, a sequence number, and the fields openai's event interface requires. */
export const responsesStreamEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('response.created'), sequence_number: z.int(), response: responseObjectSchema }),
  z.looseObject({ type: z.literal('response.in_progress'), sequence_number: z.int(), response: responseObjectSchema }),
  z.looseObject({ type: z.literal('response.completed'), sequence_number: z.int(), response: responseObjectSchema }),
  z.looseObject({ type: z.literal('response.incomplete'), sequence_number: z.int(), response: responseObjectSchema }),
  z.looseObject({
    type: z.literal('response.output_item.added'),
    sequence_number: z.int(),
    output_index: z.int(),
    item: z.looseObject({ id: z.string(), type: z.string() }),
  }),
  z.looseObject({
    type: z.literal('response.output_item.done'),
    sequence_number: z.int(),
    output_index: z.int(),
    item: responsesOutputItemSchema,
  }),
  ...(['response.content_part.added', 'response.content_part.done'] as const).map((type) =>
    z.looseObject({
      type: z.literal(type),
      sequence_number: z.int(),
      item_id: z.string(),
      output_index: z.int(),
      content_index: z.int(),
      part: outputTextPart,
    }),
  ),
  z.looseObject({
    type: z.literal('response.output_text.delta'),
    sequence_number: z.int(),
    item_id: z.string(),
    output_index: z.int(),
    content_index: z.int(),
    delta: z.string(),
    logprobs: z.array(z.unknown()),
  }),
  z.looseObject({
    type: z.literal('response.output_text.done'),
    sequence_number: z.int(),
    item_id: z.string(),
    output_index: z.int(),
    content_index: z.int(),
    text: z.string(),
    logprobs: z.array(z.unknown()),
  }),
  z.looseObject({
    type: z.literal('response.function_call_arguments.delta'),
    sequence_number: z.int(),
    item_id: z.string(),
    output_index: z.int(),
    delta: z.string(),
  }),
  z.looseObject({
    type: z.literal('response.function_call_arguments.done'),
    sequence_number: z.int(),
    item_id: z.string(),
    output_index: z.int(),
    name: z.string(),
    arguments: z.string(),
  }),
  z.looseObject({
    type: z.literal('error'),
    sequence_number: z.int(),
    code: z.string().nullable(),
    message: z.string(),
    param: z.string().nullable(),
  }),
]);
