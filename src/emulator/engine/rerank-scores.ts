/**
 * Reranking for every `serve` front (watsonx `/ml/v1/text/rerank`, the OpenAI-compatible `/v1/rerank`): the score
 * of a text is the cosine similarity of its embedding and the query's, from whatever engine serves (the
 * deterministic engine's hashed embeddings by default), so texts that share the query's words rank first and the
 * same request always gets the same scores. Protocol-neutral: the routes validate and word the answer.
 */
import type { Engine } from './engine.js';

export interface RerankScoring {
  query: string;
  texts: readonly string[];
  /** Names the vector space (the model), so different rerank models give different scores. */
  space: string;
  /** Keep at most this many tokens of each text (and of the query), from the start. */
  truncate?: number;
}

export type RerankScores =
  | { ok: true; scores: number[]; inputTokens: number; tokens: { query: number; texts: number[] } }
  | { ok: false; reason: string };

/** The dimensions of the space scores are computed in: enough for hashed features not to collide much. */
const DIMENSIONS = 384;

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * (b[i] ?? 0);
    na += a[i]! * a[i]!;
    nb += (b[i] ?? 0) * (b[i] ?? 0);
  }
  if (na === 0 || nb === 0) return 0;
  // Six decimals, as the embeddings themselves: answers stay small and equal texts tie exactly.
  return Math.round((dot / Math.sqrt(na * nb)) * 1e6) / 1e6;
}

/** Token counts before any cut: what the routes check against the model's input limit. */
export async function rerankTokenCounts(
  engine: Engine,
  query: string,
  texts: readonly string[],
): Promise<{ query: number; texts: number[] }> {
  const tokenizer = await engine.tokenizer();
  return { query: tokenizer.encode(query).length, texts: texts.map((t) => tokenizer.encode(t).length) };
}

export async function rerankScores(engine: Engine, request: RerankScoring): Promise<RerankScores> {
  const tokenizer = await engine.tokenizer();
  const cut = (ids: number[]) =>
    request.truncate !== undefined && request.truncate > 0 && ids.length > request.truncate
      ? ids.slice(0, request.truncate)
      : ids;
  const space = { dimensions: DIMENSIONS, name: `rerank/${request.space}`, context: true };
  const queryIds = cut(tokenizer.encode(request.query));
  const query = await engine.embed({ ids: queryIds, space });
  if (!query.ok) return query;
  const scores: number[] = [];
  const counts: number[] = [];
  for (const text of request.texts) {
    const ids = cut(tokenizer.encode(text));
    const embedded = await engine.embed({ ids, space });
    if (!embedded.ok) return embedded;
    scores.push(cosine(query.vector, embedded.vector));
    counts.push(ids.length);
  }
  // A cross-encoder reads the query with every text: each pair counts the query's tokens again.
  const inputTokens = counts.reduce((sum, n) => sum + n + queryIds.length, 0);
  return { ok: true, scores, inputTokens, tokens: { query: queryIds.length, texts: counts } };
}
