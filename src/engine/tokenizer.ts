/**
 * The engine's tokenizer: OpenAI's public cl100k_base encoding from gpt-tokenizer, loaded on
 * first use (≈150 ms) so starting the server stays cheap.
 */

export interface Tokenizer {
  readonly encoding: string;
  /** Special-token text in user input ("<|endoftext|>") is encoded as plain text, never rejected. */
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

let loading: Promise<Tokenizer> | undefined;

export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= import('gpt-tokenizer/encoding/cl100k_base').then((m) => {
    const plainText = { disallowedSpecial: new Set<string>() };
    return {
      encoding: 'cl100k_base',
      encode: (text: string) => m.encode(text, plainText),
      decode: (ids: readonly number[]) => m.decode(ids),
    };
  });
  return loading;
}
