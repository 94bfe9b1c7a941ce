/** Values every embeddings adapter and the `embed` command share: pooling and representation names, flags. */
import type { EmbedSetting, EmbedSettings, Pooling, Representation } from './adapter.js';

export const POOLINGS = ['mean', 'weighted_mean', 'max', 'last_token', 'abs_max'] as const satisfies readonly Pooling[];

export const REPRESENTATIONS = ['symmetric', 'document', 'query'] as const satisfies readonly Representation[];

/** The one size Aleph Alpha compresses semantic embeddings to. */
export const COMPRESSED_SIZE = 128 satisfies NonNullable<EmbedSettings['compress_to_size']>;

/** The flag behind each setting, for messages. */
export const SETTING_FLAGS: Record<EmbedSetting, string> = {
  truncate_input_tokens: '--truncate-input-tokens',
  layers: '--layers',
  pooling: '--pooling',
  tokens: '--tokens',
  normalize: '--normalize',
  representation: '--representation',
  compress_to_size: '--compress-to-size',
  nice: '--nice',
};

/** An array of numbers: what every provider calls a vector. */
export function isVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((x) => typeof x === 'number');
}
