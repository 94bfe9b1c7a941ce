/**
 * The canonical chat request, result and stream chunk: one vocabulary for every provider's chat API, so that
 * `chat -o json` has the same shape whatever the wire protocol (docs/protocols/chat.md). The chat APIs of all four
 * services descend from OpenAI's chat completions, so the field names (`max_tokens`, `finish_reason`, `usage`) are
 * theirs. Types only: anything may import this file.
 */
import type { ServiceWarning } from './canonical.js';

export const CHAT_ROLES = ['system', 'user', 'assistant'] as const;
/** The roles a user writes with `--message ROLE=TEXT`; `tool` messages carry a call id (`--tool-result`). */
export type ChatRole = (typeof CHAT_ROLES)[number];

export interface ChatMessage {
  role: ChatRole | 'tool';
  content: string;
  /** An assistant turn that asked for tools (its `content` may then be empty). */
  tool_calls?: ToolCall[];
  /** A `tool` message: the id of the call it answers. */
  tool_call_id?: string;
}

/**
 * A function the model may call: the shape OpenAI, Azure, watsonx and Aleph Alpha all take on the wire
 * (`tools: [{type: "function", function: {...}}]`). `parameters` is a JSON Schema object.
 */
export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

/** `--tool-choice`: one of the three words, or the name of one function the model must call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { function: string };

/** One call the model asked for; `arguments` is the JSON text exactly as the service sent it. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A streamed piece of a tool call: the first piece of an `index` carries id and name, later ones argument text. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

/** `--response-format` / `--json-schema`. */
export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean } };

/** The parameters `chat` carries; each provider's capabilities say which of them its wire takes. */
export interface ChatParameters {
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  seed?: number;
  /** Answers per request. */
  n?: number;
  logprobs?: boolean;
  /** Alternatives per token; implies logprobs. */
  top_logprobs?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  /** Milliseconds (watsonx). */
  time_limit?: number;
}

export type ChatParameterName = keyof ChatParameters;

export interface ChatRequest {
  messages: ChatMessage[];
  parameters: ChatParameters;
  tools?: ChatTool[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormat;
}

/**
 * Why an answer ended: OpenAI's `finish_reason` words, which the services share (`stop`, `length`, `content_filter`,
 * `tool_calls`; watsonx adds `time_limit`, `cancelled`, `error`). `not_finished` while a stream is still going;
 * unknown words are kept as they came.
 */
export type FinishReason =
  | 'stop'
  | 'length'
  | 'content_filter'
  | 'tool_calls'
  | 'time_limit'
  | 'cancelled'
  | 'error'
  | 'not_finished'
  | (string & {});

export interface ChatTopLogprob {
  token: string;
  logprob: number;
}

export interface ChatTokenLogprob {
  token: string;
  logprob: number;
  top_logprobs?: ChatTopLogprob[];
}

export interface ChatChoice {
  index: number;
  message: { role: 'assistant'; content: string; tool_calls?: ToolCall[] };
  finish_reason: FinishReason;
  /** Present when log-probabilities were asked for and the service sent them. */
  logprobs?: ChatTokenLogprob[];
}

export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

/** `chat -o json`: keys in this order for every provider. */
export interface ChatResult {
  /** The provider kind that answered (`watsonx`, `azure-openai`, …). */
  provider: string;
  /** The service's id of this completion. */
  id?: string;
  model?: string;
  created_at?: string;
  choices: ChatChoice[];
  usage?: ChatUsage;
  warnings?: ServiceWarning[];
}

/** One streamed piece of one or more answers. */
export interface ChatChunkChoice {
  index: number;
  /** The text added by this chunk (may be empty). */
  content: string;
  /** Tool-call pieces in this chunk, assembled by index before they are printed. */
  tool_calls?: ToolCallDelta[];
  /** Set on the chunk that ends this answer. */
  finish_reason?: FinishReason;
  logprobs?: ChatTokenLogprob[];
}

/** `chat -o jsonl`: one of these per line while the answer streams. */
export interface ChatChunk {
  provider: string;
  id?: string;
  model?: string;
  created_at?: string;
  choices: ChatChunkChoice[];
  usage?: ChatUsage;
  warnings?: ServiceWarning[];
}
