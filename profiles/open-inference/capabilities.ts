import type { ProviderCapabilities } from '../../src/contract/adapter.js';

/**
 * docs/design.md §3, open-inference column. The generate extension itself knows temperature, top_p, max_tokens, stop and
 * details; everything else travels as an extra key in `parameters` (Triton hands unknown keys to the backend),
 * so it is sent only when the user's profile lists it in `server_parameters`.
 *
 * include_stop_sequence is `extra` rather than unsupported: vLLM- and TensorRT-LLM-based backends can keep or drop
 * the stop text, and the embedded server honours the key. Asking for the default (true) is never an error.
 */
export const openInferenceCapabilities: ProviderCapabilities = {
  parameters: {
    decoding_method: 'native',
    length_penalty: 'extra',
    max_new_tokens: 'native',
    min_new_tokens: 'extra',
    random_seed: 'extra',
    stop_sequences: 'native',
    temperature: 'native',
    time_limit: 'client',
    top_k: 'extra',
    top_p: 'native',
    repetition_penalty: 'extra',
    truncate_input_tokens: 'extra',
    return_options: 'native',
    include_stop_sequence: 'extra',
    typical_p: 'extra',
    prompt_variables: 'client',
  },
  returnOptions: {
    input_text: 'unsupported',
    generated_tokens: 'native',
    input_tokens: 'unsupported',
    token_logprobs: 'native',
    token_ranks: 'extra',
    top_n_tokens: 'native',
  },
  moderations: 'extra',
  choices: 'unsupported',
  streaming: 'native',
  statesStopReason: false,
};
