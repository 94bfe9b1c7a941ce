/** The engine's protocol-neutral vocabulary: what a route hands in and what it gets back. */
import type { CanonicalParameters, Moderations, StopReason } from '../../contract/canonical.js';
import type { ChatTool, ResponseFormat, ToolCall, ToolChoice } from '../../contract/chat.js';
import type { ModerationReport } from './moderation.js';

/** One chat message as the chat routes hand it to the engine's chat template. */
export interface ConversationMessage {
  role: string;
  content: string;
}

export interface EngineRequest {
  /** The final prompt (templates already filled by the protocol layer). */
  input: string;
  parameters?: CanonicalParameters | undefined;
  moderations?: Moderations | undefined;
  /**
   * The route answers with the input tokens' logprobs (watsonx `input_tokens`, OpenAI `echo`): a model engine scores
   * the prompt only then, as it costs one more pass over it. The deterministic engine always scores it.
   */
  scoreInput?: boolean | undefined;
  /**
   * The answer shows the generated tokens' logprobs, ranks or alternatives, or ranks choices by them (best_of). A
   * model engine computes them only when this or parameters.return_options (token_logprobs, token_ranks,
   * top_n_tokens) asks: without, its tokens may come without them. The deterministic engine always gives them.
   */
  tokenScores?: boolean | undefined;
  /** A chat turn: the engine lays these out with its chat template and `input` is ignored. */
  messages?: readonly ConversationMessage[] | undefined;
}

export interface EngineOptions {
  /** Aborting ends the generation with stop reason `cancelled` (a client went away). */
  signal?: AbortSignal | undefined;
  /** Wall-clock pause before each token, so streams and time limits behave like a real model. */
  tokenDelayMs?: number | undefined;
  /** Milliseconds clock for time_limit; injectable for tests. */
  now?: (() => number) | undefined;
}

export interface TokenAlternative {
  text: string;
  logprob: number;
}

export interface EngineToken {
  id: number;
  text: string;
  /** Absent for the first input token, which has nothing to be predicted from. */
  logprob?: number;
  rank?: number;
  /** The most likely tokens at this position (up to 5), best first. */
  topTokens?: TokenAlternative[];
}

/** One streamed step: usually one token; the last step carries the stop reason. */
export interface GenerationStep {
  token: EngineToken | undefined;
  /** Text to send now. Usually the token's text; may hold back or release text around stop sequences. */
  text: string;
  generatedTokenCount: number;
  stopReason?: StopReason;
}

export interface GenerationSummary {
  generatedText: string;
  generatedTokenCount: number;
  generatedTokens: EngineToken[];
  stopReason: StopReason;
  /** The prompt after truncate_input_tokens. */
  inputText: string;
  inputTokenCount: number;
  inputTokens: EngineToken[];
  seed: number | undefined;
  moderations: ModerationReport | undefined;
}

export interface Generation extends AsyncIterable<GenerationStep> {
  readonly inputText: string;
  readonly inputTokenCount: number;
  readonly inputTokens: EngineToken[];
  readonly seed: number | undefined;
  /** The whole result; throws until iteration has finished. */
  summary(): GenerationSummary;
  /**
   * Runs the generation to its end instead of iterating it (either, once), to the same summary: for an engine that
   * does so with fewer promises than one per step (runToEnd, engine.ts).
   */
  toEnd?(): Promise<GenerationSummary>;
}

/**
 * A JSON document asked of a model engine (structured-answer.ts): the conversation, the JSON Schema its answer must
 * follow (undefined: any JSON object) and the sampling parameters. The engine enforces the schema while it generates.
 */
export interface JsonRequest {
  messages: readonly ConversationMessage[];
  schema: Record<string, unknown> | undefined;
  parameters: CanonicalParameters;
}

export interface JsonAnswer {
  /** The document as generated (complete JSON unless the stop reason is a limit). */
  text: string;
  promptTokens: number;
  generatedTokens: number;
  stopReason: StopReason;
}

/** The sampling fields the chat APIs share (OpenAI's names). */
export interface ChatSampling {
  max_tokens?: number | null | undefined;
  temperature?: number | null | undefined;
  top_p?: number | null | undefined;
  stop?: string | string[] | null | undefined;
  seed?: number | null | undefined;
  frequency_penalty?: number | null | undefined;
  presence_penalty?: number | null | undefined;
  time_limit?: number | null | undefined;
  logprobs?: boolean | null | undefined;
  top_logprobs?: number | null | undefined;
}

/** One message of the request's history, as the routes hand it over (content flattened to text). */
export interface TurnMessage {
  role: string;
  content: string | null;
  tool_calls?: readonly ToolCall[] | undefined;
  tool_call_id?: string | undefined;
}

export interface TurnRequest {
  messages: readonly TurnMessage[];
  sampling: ChatSampling;
  tools?: readonly ChatTool[] | undefined;
  tool_choice?: ToolChoice | undefined;
  parallel_tool_calls?: boolean | undefined;
  response_format?: ResponseFormat | undefined;
}

export type TurnDecision =
  | { kind: 'text' }
  /** `schema` undefined: any JSON object (`json_object`). */
  | { kind: 'json'; schema: Record<string, unknown> | undefined }
  | { kind: 'tool_calls'; tools: ChatTool[] };

export interface StructuredChoice {
  /** The JSON document (kind `json`), '' when the choice calls tools. */
  content: string;
  tool_calls: ToolCall[];
  finish_reason: 'stop' | 'tool_calls' | 'length';
  completion_tokens: number;
}

export type TurnPlan =
  | { kind: 'text' }
  | { kind: 'json' | 'tool_calls'; choices: StructuredChoice[]; prompt_tokens: number };
