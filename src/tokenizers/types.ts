/** What every tokenizer that runs on this machine offers: the OpenAI encodings and fetched tokenizer.json files. */
export interface OfflineTokenizer {
  /** The public encoding's name ("cl100k_base"); absent for a tokenizer fetched from a service. */
  readonly encoding?: string;
  /** Text → token ids. Special-token text in the input ("<|endoftext|>") is plain text unless the tokenizer says otherwise. */
  encode(text: string): number[];
  /** Each token as the tokenizer spells it. Throws UsageError for an id the tokenizer does not know. */
  tokenTexts(ids: readonly number[]): string[];
  /** Token ids → text; bytes that are not valid UTF-8 become U+FFFD. Throws UsageError for an unknown id. */
  decode(ids: readonly number[]): string;
}
