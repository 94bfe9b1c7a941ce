import type { ProviderCapabilities } from '../../src/contract/adapter.js';

/**
 * docs/design.md §3, aleph-alpha column. include_stop_sequence is native although 1.16 has no such field: AA leaves the
 * stop sequence out of the completion, and the profile puts it back (true) or takes it off (false) in the
 * canonical result — see finish-reason.ts. Several completions per prompt are AA's own `n`.
 */
export const alephAlphaCapabilities: ProviderCapabilities = {
  parameters: {
    decoding_method: 'native',
    length_penalty: 'unsupported',
    max_new_tokens: 'native',
    min_new_tokens: 'native',
    random_seed: 'unsupported',
    stop_sequences: 'native',
    temperature: 'native',
    time_limit: 'client',
    top_k: 'native',
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
  // 1.16 states no limit on stop sequences.
  streaming: 'profile',
  statesStopReason: true,
};
