import type {
  CanonicalRequest,
  GenerateResult,
  GenerateResultItem,
  ServiceWarning,
  TokenInfo,
} from '../contract/canonical.js';

interface ItemState {
  text: string[];
  inputTokenCount: number | undefined;
  counts: number[];
  countsPerEvent: boolean;
  stopReason: string;
  seed: number | undefined;
  generatedTokens: TokenInfo[];
  inputTokens: TokenInfo[] | undefined;
  inputText: string | undefined;
  moderations: Record<string, unknown> | undefined;
}

function newItem(): ItemState {
  return {
    text: [],
    inputTokenCount: undefined,
    counts: [],
    countsPerEvent: false,
    stopReason: 'not_finished',
    seed: undefined,
    generatedTokens: [],
    inputTokens: undefined,
    inputText: undefined,
    moderations: undefined,
  };
}

function mergeModerations(
  into: Record<string, unknown> | undefined,
  from: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(into ?? {}) };
  for (const [k, v] of Object.entries(from)) {
    const prev = out[k];
    out[k] = Array.isArray(prev) && Array.isArray(v) ? [...prev, ...v] : v;
  }
  return out;
}

/**
 * Folds streamed canonical chunks into one result. Token counts differ between servers
 * (docs/protocols/watsonx.md): input_token_count is taken from the first non-zero event; generated_token_count
 * is the maximum seen when counts are cumulative, and their sum when they are per event (detected
 * when a count fails to grow while text was added).
 */
export class StreamAggregator {
  private readonly items: ItemState[] = [];
  private modelId: string | undefined;
  private modelVersion: string | undefined;
  private createdAt: string | undefined;
  private readonly warnings: ServiceWarning[] = [];
  private readonly warningKeys = new Set<string>();

  /** Adds a chunk; returns the warnings it carried that were not seen before. */
  add(chunk: GenerateResult): ServiceWarning[] {
    this.modelId ??= chunk.model_id;
    this.modelVersion ??= chunk.model_version;
    this.createdAt ??= chunk.created_at;
    chunk.results.forEach((r, i) => this.addItem(i, r));
    const fresh: ServiceWarning[] = [];
    for (const w of chunk.system?.warnings ?? []) {
      const key = `${w.id ?? ''}\u0000${w.message}`;
      if (this.warningKeys.has(key)) continue;
      this.warningKeys.add(key);
      this.warnings.push(w);
      fresh.push(w);
    }
    return fresh;
  }

  private addItem(index: number, r: GenerateResultItem): void {
    const s = (this.items[index] ??= newItem());
    if (r.generated_text) s.text.push(r.generated_text);
    if (s.inputTokenCount === undefined && typeof r.input_token_count === 'number' && r.input_token_count > 0) {
      s.inputTokenCount = r.input_token_count;
    }
    if (typeof r.generated_token_count === 'number') {
      const prev = s.counts[s.counts.length - 1];
      if (prev !== undefined && r.generated_text && r.generated_token_count <= prev && r.generated_token_count > 0) {
        s.countsPerEvent = true;
      }
      s.counts.push(r.generated_token_count);
    }
    if (r.stop_reason && r.stop_reason !== 'not_finished') s.stopReason = r.stop_reason;
    if (typeof r.seed === 'number') s.seed = r.seed;
    if (r.generated_tokens) s.generatedTokens.push(...r.generated_tokens);
    if (r.input_tokens) s.inputTokens = [...(s.inputTokens ?? []), ...r.input_tokens];
    if (typeof r.input_text === 'string') s.inputText = r.input_text;
    if (r.moderations) s.moderations = mergeModerations(s.moderations, r.moderations);
  }

  /** The text so far of the first result (for partial output). */
  text(index = 0): string {
    return this.items[index]?.text.join('') ?? '';
  }

  result(): GenerateResult {
    const results = (this.items.length > 0 ? this.items : [newItem()]).map((s): GenerateResultItem => {
      const counts = s.counts;
      const generated =
        counts.length === 0 ? undefined : s.countsPerEvent ? counts.reduce((a, b) => a + b, 0) : Math.max(...counts);
      const item: GenerateResultItem = { generated_text: s.text.join(''), stop_reason: s.stopReason };
      if (s.inputText !== undefined) item.input_text = s.inputText;
      if (generated !== undefined) item.generated_token_count = generated;
      item.input_token_count = s.inputTokenCount ?? 0;
      if (s.seed !== undefined) item.seed = s.seed;
      if (s.generatedTokens.length > 0) item.generated_tokens = s.generatedTokens;
      if (s.inputTokens) item.input_tokens = s.inputTokens;
      if (s.moderations) item.moderations = s.moderations;
      return item;
    });
    const out: GenerateResult = { results };
    if (this.modelId !== undefined) out.model_id = this.modelId;
    if (this.modelVersion !== undefined) out.model_version = this.modelVersion;
    if (this.createdAt !== undefined) out.created_at = this.createdAt;
    if (this.warnings.length > 0) out.system = { warnings: this.warnings };
    return out;
  }

  /**
   * A stream that ended cleanly without saying why it stopped (Triton without details): a requested stop
   * sequence at the end of the text means stop_sequence, reaching max_new_tokens means max_tokens, else eos_token.
   */
  settle(request: CanonicalRequest): void {
    const stops = request.parameters?.stop_sequences ?? [];
    const max = request.parameters?.max_new_tokens;
    for (const s of this.items) {
      if (s.stopReason !== 'not_finished') continue;
      const text = s.text.join('');
      const generated =
        s.counts.length === 0
          ? undefined
          : s.countsPerEvent
            ? s.counts.reduce((a, b) => a + b, 0)
            : Math.max(...s.counts);
      if (stops.some((stop) => stop !== '' && text.endsWith(stop))) s.stopReason = 'stop_sequence';
      else if (max !== undefined && generated !== undefined && generated >= max) s.stopReason = 'max_tokens';
      else s.stopReason = 'eos_token';
    }
  }

  /** True while some completion has not said why it stopped (or nothing arrived at all). */
  unfinished(): boolean {
    return this.items.length === 0 || this.items.some((s) => s.stopReason === 'not_finished');
  }

  /** Marks the result as broken off (stream error or interrupt) unless the service already said why it stopped. */
  markStopped(reason: string): void {
    // Cut before any event: the one empty completion still says why it stopped.
    if (this.items.length === 0) this.items.push(newItem());
    for (const s of this.items) if (s.stopReason === 'not_finished') s.stopReason = reason;
  }
}

const RESULT_KEYS = ['model_id', 'model_version', 'created_at', 'results', 'system'];
const ITEM_KEYS = [
  'generated_text',
  'input_text',
  'generated_token_count',
  'input_token_count',
  'stop_reason',
  'seed',
  'generated_tokens',
  'input_tokens',
  'moderations',
];

function ordered<T extends object>(value: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  const v = value as Record<string, unknown>;
  for (const k of keys) if (v[k] !== undefined) out[k] = v[k];
  for (const k of Object.keys(v)) if (!(k in out) && v[k] !== undefined) out[k] = v[k];
  return out as T;
}

/** The canonical result with its keys in watsonx's order, whichever provider produced it, so outputs diff cleanly. */
export function inCanonicalOrder(result: GenerateResult): GenerateResult {
  const top = ordered(result, RESULT_KEYS);
  top.results = result.results.map((r) => ordered(r, ITEM_KEYS));
  return top;
}
