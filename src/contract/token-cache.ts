/**
 * What an authenticator may keep between runs (an exchanged token and its lifetime) and the key it is kept under;
 * the store itself (files under the user's cache directory) is src/config/token-cache.ts.
 */
export interface CachedToken {
  token: string;
  /** Epoch ms. */
  expiresAt: number;
  /** Epoch ms when the token was obtained; lets the refresh margin scale with the token's lifetime. */
  obtainedAt?: number;
}

export interface TokenCache {
  get(key: string): Promise<CachedToken | undefined>;
  set(key: string, token: CachedToken): Promise<void>;
  delete(key: string): Promise<void>;
}

/** sha256 of the credential parts, hex. JSON framing keeps ["ab","c"] and ["a","bc"] apart. */
export function tokenCacheKey(parts: string[]): string {
  // node:crypto on first use, not when this module loads: a watsonx request with --token (no exchange) would
  // otherwise load crypto's 14 modules for nothing (13 M instructions; docs/performance.md).
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}
