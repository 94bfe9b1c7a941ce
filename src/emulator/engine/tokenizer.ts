/**
 * The engine's tokenizer: OpenAI's public cl100k_base encoding, loaded on first use (≈150 ms) so starting the
 * server stays cheap; `textgen serve` starts that use itself right after listening (ServerOptions.preloadTokenizer). It is the CLI's own offline tokenizer (src/tokenizers), whose decoding cannot leak bytes of
 * a split UTF-8 character from one call into the next.
 */
import { loadOpenAiTokenizer } from '../../tokenizers/openai-tokenizer.js';

export interface Tokenizer {
  readonly encoding: string;
  /** Special-token text in user input ("<|endoftext|>") is encoded as plain text, never rejected. */
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** Each token's own text, as a tokenization route lists them. */
  tokenTexts(ids: readonly number[]): string[];
}

let loading: Promise<Tokenizer> | undefined;

export function loadTokenizer(): Promise<Tokenizer> {
  loading ??= loadOpenAiTokenizer('cl100k_base').then((t) => ({
    encoding: 'cl100k_base',
    encode: (text: string) => t.encode(text),
    decode: (ids: readonly number[]) => t.decode(ids),
    tokenTexts: (ids: readonly number[]) => t.tokenTexts(ids),
  }));
  return loading;
}
