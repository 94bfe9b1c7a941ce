/**
 * `embed`: texts → vectors, in one canonical shape for every provider that has an embeddings endpoint. Each such
 * provider's adapter has an `embed` loader (`profiles/<kind>/client/embed.ts`, pure wire mapping), and run-embed.ts
 * sends the batches. Cheap to import: types, small helpers, lazy modules.
 */
import type { ProviderKind } from '../contract/profile.js';
import { adapterFor, kindsWith } from '../../profiles/registry.js';
import type {
  EmbedBatchAnswer,
  EmbeddingEntry,
  EmbedOperation,
  EmbedResult,
  EmbedSetting,
  EmbedSettings,
  Embedding,
} from '../contract/adapter.js';
import { SETTING_FLAGS } from '../contract/embed-settings.js';
import { UsageError } from '../contract/errors.js';

/** The kinds with an embeddings endpoint, in the order messages list them. */
export function embedProviders(): ProviderKind[] {
  return kindsWith((adapter) => adapter.embed !== undefined);
}

/** The provider's embeddings mapping, or undefined: it has no embeddings endpoint. */
export async function loadEmbedOperation(kind: ProviderKind): Promise<EmbedOperation | undefined> {
  return adapterFor(kind).embed?.();
}

/** The kinds whose operation understands a setting (for "it works with …"). */
export async function providersWithSetting(setting: EmbedSetting): Promise<ProviderKind[]> {
  const out: ProviderKind[] = [];
  for (const kind of embedProviders()) {
    if ((await loadEmbedOperation(kind))?.settings.includes(setting)) out.push(kind);
  }
  return out;
}

/** Consecutive slices of at most `size` items; together they are `items`, in order. */
export function splitBatches<T>(items: readonly T[], size: number): T[][] {
  if (!(Number.isInteger(size) && size >= 1))
    throw new RangeError(`batch size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The answers of consecutive batches → one result: indexes run on across batches, token counts add up. */
export function combineAnswers(model: string, answers: readonly EmbedBatchAnswer[]): EmbedResult {
  const embeddings: EmbeddingEntry[] = [];
  let tokens = 0;
  for (const answer of answers) {
    for (const e of answer.embeddings) {
      embeddings.push({
        index: embeddings.length,
        embedding: e.embedding,
        ...(e.tokens !== undefined ? { tokens: e.tokens } : {}),
      });
    }
    tokens += answer.inputTokenCount;
  }
  const lengths = new Set(embeddings.map((e) => singleVector(e.embedding)?.length ?? -1));
  const [only] = lengths;
  return {
    model: answers.find((a) => a.model !== undefined)?.model ?? model,
    ...(lengths.size === 1 && only !== undefined && only > 0 ? { dimensions: only } : {}),
    embeddings,
    input_token_count: tokens,
  };
}

/**
 * Text output: one line per input, in order. A vector prints as a JSON array; an Aleph Alpha layer/pooling result
 * holding exactly one vector (the default: one layer, one pooling) prints as that array, a larger one as its JSON
 * object, still on one line so line N stays the N-th text.
 */
export function embeddingLines(result: EmbedResult): string {
  return result.embeddings.map((e) => `${JSON.stringify(singleVector(e.embedding) ?? e.embedding)}\n`).join('');
}

/** The one vector of an embedding, or undefined for several layers or poolings. */
export function singleVector(embedding: Embedding): number[] | undefined {
  if (Array.isArray(embedding)) return embedding;
  const layers = Object.values(embedding);
  if (layers.length !== 1) return undefined;
  const poolings = Object.values(layers[0]!);
  return poolings.length === 1 ? poolings[0] : undefined;
}

/** Every given setting must be one the provider understands; then the provider's own combination rules. */
export async function checkEmbedSettings(op: EmbedOperation, provider: string, settings: EmbedSettings): Promise<void> {
  for (const key of Object.keys(settings) as EmbedSetting[]) {
    if (settings[key] === undefined || op.settings.includes(key)) continue;
    const others = await providersWithSetting(key);
    throw new UsageError(
      `${SETTING_FLAGS[key]} is not supported by ${provider} for embed; it works with ${others.join(', ')}`,
    );
  }
  op.checkSettings?.(settings);
}
