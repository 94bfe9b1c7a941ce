import type { ProviderCapabilities } from '../../src/contract/adapter.js';
import { WATSONX_MAX_STOP_SEQUENCES } from './client/request.js';

/** watsonx is the canonical vocabulary: everything is native, except several completions per prompt. */
export const watsonxCapabilities: ProviderCapabilities = {
  parameters: {
    decoding_method: 'native',
    length_penalty: 'native',
    max_new_tokens: 'native',
    min_new_tokens: 'native',
    random_seed: 'native',
    stop_sequences: 'native',
    temperature: 'native',
    time_limit: 'native',
    top_k: 'native',
    top_p: 'native',
    repetition_penalty: 'native',
    truncate_input_tokens: 'native',
    return_options: 'native',
    include_stop_sequence: 'native',
    typical_p: 'native',
    prompt_variables: 'native',
  },
  returnOptions: {
    input_text: 'native',
    generated_tokens: 'native',
    input_tokens: 'native',
    token_logprobs: 'native',
    token_ranks: 'native',
    top_n_tokens: 'native',
  },
  moderations: 'native',
  choices: 'unsupported',
  maxStopSequences: WATSONX_MAX_STOP_SEQUENCES,
  streaming: 'native',
  statesStopReason: true,
  // Prompt templates belong to deployments; for a foundation model the CLI fills {{var}} itself.
  forModels: { prompt_variables: 'client' },
};
