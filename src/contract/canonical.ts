/**
 * The canonical request and result: watsonx's shapes (docs/design.md §3). Every provider profile maps
 * to and from these, so `--output json` looks the same whatever the wire protocol.
 */

export type DecodingMethod = 'greedy' | 'sample';

export interface LengthPenalty {
  decay_factor?: number;
  start_index?: number;
}

export interface ReturnOptions {
  input_text?: boolean;
  generated_tokens?: boolean;
  input_tokens?: boolean;
  token_logprobs?: boolean;
  token_ranks?: boolean;
  top_n_tokens?: number;
}

export interface CanonicalParameters {
  decoding_method?: DecodingMethod;
  length_penalty?: LengthPenalty;
  max_new_tokens?: number;
  min_new_tokens?: number;
  random_seed?: number;
  stop_sequences?: string[];
  temperature?: number;
  time_limit?: number;
  top_k?: number;
  top_p?: number;
  repetition_penalty?: number;
  truncate_input_tokens?: number;
  return_options?: ReturnOptions;
  include_stop_sequence?: boolean;
  typical_p?: number;
  prompt_variables?: Record<string, string>;
}

/** HAP/PII moderation settings; the service allows extra keys, so this stays open. */
export type Moderations = Record<string, unknown>;

export interface CanonicalRequest {
  input?: string;
  parameters?: CanonicalParameters;
  moderations?: Moderations;
  /** Completions per prompt (`complete -n`); a textgen extension, never sent to watsonx. */
  n?: number;
}

export interface TopToken {
  text?: string;
  logprob?: number;
}

export interface TokenInfo {
  text?: string;
  id?: number;
  logprob?: number;
  rank?: number;
  top_tokens?: TopToken[];
}

export type StopReason =
  | 'not_finished'
  | 'max_tokens'
  | 'eos_token'
  | 'cancelled'
  | 'time_limit'
  | 'stop_sequence'
  | 'token_limit'
  | 'error'
  // Unknown values from a server are kept as they are.
  | (string & {});

export interface GenerateResultItem {
  generated_text: string;
  /** Present when return_options.input_text was asked for. */
  input_text?: string;
  generated_token_count?: number;
  input_token_count?: number;
  stop_reason: StopReason;
  seed?: number;
  generated_tokens?: TokenInfo[];
  input_tokens?: TokenInfo[];
  moderations?: Record<string, unknown>;
}

export interface ServiceWarning {
  id?: string;
  message: string;
  more_info?: string;
}

/** watsonx `TextGenResponse`. A streamed chunk has the same shape with `generated_text` as a delta. */
export interface GenerateResult {
  model_id?: string;
  model_version?: string;
  created_at?: string;
  results: GenerateResultItem[];
  system?: { warnings?: ServiceWarning[] };
}
