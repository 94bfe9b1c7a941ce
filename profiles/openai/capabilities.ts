import type { ProviderCapabilities } from '../../src/contract/adapter.js';

/** The service takes `stop` as a string or up to four strings (docs/protocols/azure-openai.md). */
export const AZURE_MAX_STOP_SEQUENCES = 4;

/**
 * docs/design.md §3, azure-openai column; the OpenAI-compatible kind shares it. `include_stop_sequence` is native although
 * the wire has no such field: false is what the service always does, and true is answered with a warning (see
 * `stopSequenceWarnings`), not refused, because it is watsonx's default and scripts set it without thinking.
 * `random_seed` is `seed`: OpenAI's completions and the OpenAI SDK's `CompletionCreateParams` take it (best-effort
 * determinism); Azure honours it from later API versions and ignores it in older ones.
 */
export const azureOpenAiCapabilities: ProviderCapabilities = {
  parameters: {
    decoding_method: 'native',
    length_penalty: 'unsupported',
    max_new_tokens: 'native',
    min_new_tokens: 'unsupported',
    random_seed: 'native',
    stop_sequences: 'native',
    temperature: 'native',
    time_limit: 'client',
    top_k: 'unsupported',
    top_p: 'native',
    repetition_penalty: 'unsupported',
    truncate_input_tokens: 'unsupported',
    return_options: 'native',
    include_stop_sequence: 'native',
    typical_p: 'unsupported',
    prompt_variables: 'client',
  },
  returnOptions: {
    input_text: 'native',
    generated_tokens: 'native',
    input_tokens: 'unsupported',
    token_logprobs: 'native',
    token_ranks: 'unsupported',
    top_n_tokens: 'native',
  },
  moderations: 'unsupported',
  choices: 'native',
  maxStopSequences: AZURE_MAX_STOP_SEQUENCES,
  streaming: 'native',
  statesStopReason: true,
};
