/**
 * `embed`'s provider-specific flags → EmbedSettings. Only the flags given become settings, so the provider check
 * can name each one it does not understand. Every malformed value is a UsageError naming its flag.
 */
import { UsageError } from '../contract/errors.js';
import { coerceEnum, coerceInt, parseBooleanFlag } from '../options/flag-values.js';
import { COMPRESSED_SIZE, POOLINGS, REPRESENTATIONS } from '../contract/embed-settings.js';
import type { EmbedSettings, Pooling, Representation } from '../contract/adapter.js';
import { parseIntegerFlag } from '../options/integer-flag.js';

/**
 * The flags read here, with the value types commander gives them as commands/embed.ts declares them: its handler
 * passes its OptionsOf, so the type checker holds the two together.
 */
export interface EmbedFlagOptions {
  truncateInputTokens?: string;
  layers?: string[];
  pooling?: string[];
  tokens?: string | true;
  normalize?: string | true;
  representation?: string;
  compressToSize?: string;
  nice?: string | true;
}

/** A repeatable flag's values, each split at commas; blanks dropped. */
function listItems(values: readonly string[]): string[] {
  return values
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function layersFlag(value: readonly string[]): number[] {
  const items = listItems(value);
  if (items.length === 0)
    throw new UsageError('--layers needs at least one layer index, e.g. --layers -1 or --layers 0,-1');
  return items.map((item) => {
    const n = coerceInt(item);
    if (typeof n !== 'number')
      throw new UsageError(
        `--layers takes integers (0 = input embeddings, -1 = the last layer), got ${JSON.stringify(item)}`,
      );
    return n;
  });
}

function poolingFlag(value: readonly string[]): Pooling[] {
  const items = listItems(value);
  if (items.length === 0) throw new UsageError(`--pooling needs at least one of ${POOLINGS.join(', ')}`);
  return items.map((item) => {
    const v = coerceEnum(item);
    if (!(POOLINGS as readonly unknown[]).includes(v))
      throw new UsageError(`--pooling must be one of ${POOLINGS.join(', ')}, got ${JSON.stringify(item)}`);
    return v as Pooling;
  });
}

/** A `[bool]` flag; a word that is not a boolean was most likely meant as text. */
function booleanFlag(flag: string, value: string | true | undefined): boolean | undefined {
  try {
    return parseBooleanFlag(flag, value);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    throw new UsageError(e.message, { hint: `write ${flag}=true, or put ${flag} after the text` });
  }
}

export function parseEmbedSettings(options: EmbedFlagOptions): EmbedSettings {
  const s: EmbedSettings = {};
  if (options.truncateInputTokens !== undefined) {
    s.truncate_input_tokens = parseIntegerFlag('--truncate-input-tokens', options.truncateInputTokens, {
      min: 0,
      says: 'must be an integer of 0 or more (0 = no truncation)',
    });
  }
  if (options.layers !== undefined) s.layers = layersFlag(options.layers);
  if (options.pooling !== undefined) s.pooling = poolingFlag(options.pooling);
  const tokens = booleanFlag('--tokens', options.tokens);
  if (tokens !== undefined) s.tokens = tokens;
  const normalize = booleanFlag('--normalize', options.normalize);
  if (normalize !== undefined) s.normalize = normalize;
  if (options.representation !== undefined) {
    const v = coerceEnum(options.representation);
    if (!(REPRESENTATIONS as readonly unknown[]).includes(v)) {
      throw new UsageError(
        `--representation must be one of ${REPRESENTATIONS.join(', ')}, got ${JSON.stringify(options.representation)}`,
      );
    }
    s.representation = v as Representation;
  }
  if (options.compressToSize !== undefined) {
    if (coerceInt(options.compressToSize) !== COMPRESSED_SIZE) {
      throw new UsageError(
        `--compress-to-size must be ${COMPRESSED_SIZE} (the only size the service compresses to), got ${JSON.stringify(options.compressToSize)}`,
      );
    }
    s.compress_to_size = COMPRESSED_SIZE;
  }
  const nice = booleanFlag('--nice', options.nice);
  if (nice !== undefined) s.nice = nice;
  return s;
}
